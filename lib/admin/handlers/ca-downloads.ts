/**
 * A CA's certificate for download (docs/guides/admin-interface.md): `cas/{ca}/download?format=pem|der|chain`
 * — PEM, DER, or the chain as one PEM bundle from the CA up to its root (`caChain`, the bundle of
 * `ca-admin dump_ca --bundle`), named by serial. Needs `view_certificateauthority` for the CA, as the
 * REST API's `GET /ca/{serial}/` does.
 */
import { caChain } from '../../ca/lookup';
import { caFor } from '../access';
import type { SignedInContext } from '../context';
import { downloadFormat, pemBundle, sendDownload } from '../downloads';

export async function downloadCa(ctx: SignedInContext): Promise<void> {
  const ca = await caFor(ctx, 'view_certificateauthority', ctx.params.ca);
  const format = downloadFormat(ctx, ['pem', 'der', 'chain'], 'this CA');
  let body: Buffer | string;
  if (format === 'der') body = ca.der;
  else if (format === 'chain') body = pemBundle((await caChain(ctx.services.store, ca)).map((c) => c.der));
  else body = pemBundle([ca.der]);
  sendDownload(ctx, format, ca.serial, body);
}
