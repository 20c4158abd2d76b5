/**
 * Renewal by a device (EST `simplereenroll`, RFC 7030 §4.2.2; SCEP RenewalReq, RFC 8894 §3.3.1.2):
 * the device proved it holds the key of the certificate being renewed (EST: in the TLS handshake;
 * SCEP: by signing the request with it). The core checks the rest: that certificate is one this CA
 * issued and still has — byte for byte, not revoked, not expired — and the request asks for the same
 * subject and subjectAltName. A new key is allowed (re-key).
 */
import type { Actor, CertificateRecord, Store } from '../ports';
import { parseCertificate } from '../x509/certificate';
import type { ParsedCsr } from '../x509/csr';
import type { Extension } from '../x509/types';
import { EnrolmentError } from './errors';
import type { EnrolmentTarget } from './enrol';

const forbidden = (reason: string) => new EnrolmentError(403, reason, 'badCertId');

const sanOf = (extensions: readonly Extension[]) =>
  JSON.stringify(extensions.find((e) => e.type === 'subject_alternative_name')?.value ?? null);

/**
 * The stored certificate that `presentedDer` (what the device authenticated with, `what` in the
 * reasons) renews at `target` for `csr`; else 403 / badCertId.
 */
export async function certificateBeingRenewed(
  store: Store,
  target: EnrolmentTarget,
  presentedDer: Buffer,
  csr: ParsedCsr,
  what: string,
  now = new Date(),
): Promise<CertificateRecord> {
  const presented = parseCertificate(presentedDer);
  const stored = await store.findCertificate(target.ca.id, presented.serial);
  if (!stored || !stored.der.equals(presentedDer)) throw forbidden(`The ${what} was not issued by this certificate authority.`);
  if (stored.revoked) throw forbidden(`The ${what} is revoked.`);
  if (stored.notAfter <= now) throw forbidden(`The ${what} has expired.`);
  if (JSON.stringify(csr.subject) !== JSON.stringify(presented.subject) || sanOf(csr.requestedExtensions) !== sanOf(presented.extensions)) {
    throw forbidden('The subject and subjectAltName of the request must be those of the certificate being renewed.');
  }
  return stored;
}

/** The device renewing over `protocol`, named by the certificate it authenticated with, from `address`. */
export function renewalActor(renewed: CertificateRecord, address: string | null, protocol: string): Actor {
  const actor: Actor = { type: 'certificate', name: renewed.serial, protocol };
  return address ? { ...actor, address } : actor;
}
