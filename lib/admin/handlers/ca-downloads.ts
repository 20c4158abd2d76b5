/**
 * A CA's certificate for download (README "Admin interface"): `cas/{ca}/download?format=pem|der|chain`
 * — PEM, DER, or the chain as one PEM bundle from the CA up to its root (`caChain`, the bundle of
 * `ca-admin dump_ca --bundle`), named by serial. Needs `view_certificateauthority` for the CA, as the
 * REST API's `GET /ca/{serial}/` does.
 */
import { caChain } from '../../ca/lookup';
import { pemEncode } from '../../x509/pem';
import { caFor, notFoundPage } from '../access';
import type { SignedInContext } from '../context';

const FORMATS: Record<string, { type: string; suffix: string }> = {
  pem: { type: 'application/x-pem-file', suffix: '.pem' },
  der: { type: 'application/pkix-cert', suffix: '.der' },
  chain: { type: 'application/pem-certificate-chain', suffix: '_chain.pem' },
};

export async function downloadCa(ctx: SignedInContext): Promise<void> {
  const ca = await caFor(ctx, 'view_certificateauthority', ctx.params.ca);
  const format = String(ctx.req.query.format ?? 'pem');
  const kind = Object.hasOwn(FORMATS, format) ? FORMATS[format] : undefined;
  if (!kind) throw notFoundPage(`A ${format} download of this CA`);
  let bytes: Buffer;
  if (format === 'der') bytes = ca.der;
  else if (format === 'chain')
    bytes = Buffer.from((await caChain(ctx.services.store, ca)).map((c) => pemEncode(c.der, 'CERTIFICATE')).join(''), 'utf8');
  else bytes = Buffer.from(pemEncode(ca.der, 'CERTIFICATE'), 'utf8');
  ctx.res.setHeader('Content-Type', kind.type);
  ctx.res.setHeader('Content-Disposition', `attachment; filename="${ca.serial}${kind.suffix}"`);
  ctx.res.setHeader('Content-Length', String(bytes.length));
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : bytes);
}
