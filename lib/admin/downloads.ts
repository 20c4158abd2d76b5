/**
 * The interface's file downloads (docs/guides/admin-interface.md): a certificate's or a CA's, as PEM, DER,
 * the chain as one PEM bundle, or a certificate's CSR — one table of kinds and one way to send them,
 * named by serial (some certificates have no CN) as an attachment.
 */
import { pemEncode } from '../x509/pem';
import { notFoundPage } from './access';
import type { SignedInContext } from './context';

const KINDS = {
  pem: { type: 'application/x-pem-file', suffix: '.pem' },
  der: { type: 'application/pkix-cert', suffix: '.der' },
  chain: { type: 'application/pem-certificate-chain', suffix: '_chain.pem' },
  csr: { type: 'application/pkcs10', suffix: '.csr' },
} as const;

export type DownloadFormat = keyof typeof KINDS;

/** The `format` query parameter when it is one of `offered` (default `pem`); else a 404 page naming `what`. */
export function downloadFormat(ctx: SignedInContext, offered: readonly DownloadFormat[], what: string): DownloadFormat {
  const format = String(ctx.req.query.format ?? 'pem');
  if (!(offered as readonly string[]).includes(format)) throw notFoundPage(`A ${format} download of ${what}`);
  return format as DownloadFormat;
}

/** Certificates (DER) as one PEM bundle, in the order given. */
export const pemBundle = (ders: readonly Buffer[]): string => ders.map((der) => pemEncode(der, 'CERTIFICATE')).join('');

/** Send `body` as the attachment `{serial}{suffix}` of its kind. */
export function sendDownload(ctx: SignedInContext, format: DownloadFormat, serial: string, body: Buffer | string): void {
  const kind = KINDS[format];
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  ctx.res.setHeader('Content-Type', kind.type);
  ctx.res.setHeader('Content-Disposition', `attachment; filename="${serial}${kind.suffix}"`);
  ctx.res.setHeader('Content-Length', String(bytes.length));
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : bytes);
}
