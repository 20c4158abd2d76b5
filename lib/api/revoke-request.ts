/**
 * REST revoke (`POST /ca/{serial}/revoke/{certificate_serial}/`): REST's lookup around the authority's
 * revocation rule (lib/ca/revocation.ts `revokeCert`). Input problems first (a 422 before anything is
 * looked up), then a CA this API may see inside its validity window (visibility.ts), then a currently
 * valid certificate of that CA — else not found, so that an expired revoked certificate is "not
 * found" rather than "already revoked", as upstream.
 */
import type { CertificateRecord, Store } from '../ports';
import { isWithinValidity } from '../ports/validity';
import { notFoundError } from '../ca/errors';
import { parseRevocation, revokeCert, type RevokeInput } from '../ca/revocation';
import { visibleCa } from './visibility';

export async function revokeCertificateOfCa(
  store: Store,
  caSerial: string,
  certificateSerial: string,
  input: RevokeInput & { now: Date },
): Promise<CertificateRecord> {
  const { now } = input;
  parseRevocation(input);
  const ca = await visibleCa(store, caSerial, now, { allowExpired: false });
  const cert = await store.findCertificate(ca.id, certificateSerial);
  if (!cert || !isWithinValidity(cert, now)) throw notFoundError();
  return revokeCert(store, cert, input);
}
