/**
 * When a certificate should be renewed (ARI, RFC 9773 §4.2): the last third of its life but its last
 * sixth; once it is revoked, now (renew at once), for the next hour.
 */
import type { CertificateRecord } from '../ports';

export function suggestedRenewalWindow(
  cert: Pick<CertificateRecord, 'notBefore' | 'notAfter' | 'revoked'>,
  now: Date,
): { start: Date; end: Date } {
  const lifetime = cert.notAfter.getTime() - cert.notBefore.getTime();
  return cert.revoked
    ? { start: now, end: new Date(now.getTime() + 60 * 60 * 1000) }
    : { start: new Date(cert.notAfter.getTime() - lifetime / 3), end: new Date(cert.notAfter.getTime() - lifetime / 6) };
}
