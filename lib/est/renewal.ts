/**
 * What `simplereenroll` (RFC 7030 §4.2.2) checks before it signs: the client authenticated in the TLS
 * handshake with the certificate being renewed (TLS proved it holds the key), that certificate is
 * one this endpoint's CA issued and still has — byte for byte, not revoked, not expired — and the
 * request asks for the same subject and subjectAltName. A new key is allowed (re-key, §4.2.2).
 */
import type { Actor, CertificateRecord } from '../ports';
import { parseCertificate } from '../x509/certificate';
import type { ParsedCsr } from '../x509/csr';
import type { Extension } from '../x509/types';
import type { ResolvedEndpoint } from './endpoint';
import { estError } from './framing';
import type { EstServices } from './route-types';

const forbidden = (reason: string) => estError(403, reason);

const sanOf = (extensions: readonly Extension[]) =>
  JSON.stringify(extensions.find((e) => e.type === 'subject_alternative_name')?.value ?? null);

/** The stored certificate `clientDer` renews at `endpoint` for `csr`; else 403. */
export async function certificateBeingRenewed(
  services: EstServices,
  endpoint: ResolvedEndpoint,
  clientDer: Buffer | null,
  csr: ParsedCsr,
  now = new Date(),
): Promise<CertificateRecord> {
  if (!clientDer) throw forbidden('simplereenroll needs the certificate being renewed as the TLS client certificate (RFC 7030 §4.2.2).');
  const client = parseCertificate(clientDer);
  const stored = await services.store.findCertificate(endpoint.ca.id, client.serial);
  if (!stored || !stored.der.equals(clientDer)) throw forbidden('The TLS client certificate was not issued by this certificate authority.');
  if (stored.revoked) throw forbidden('The TLS client certificate is revoked.');
  if (stored.notAfter <= now) throw forbidden('The TLS client certificate has expired.');
  if (JSON.stringify(csr.subject) !== JSON.stringify(client.subject) || sanOf(csr.requestedExtensions) !== sanOf(client.extensions)) {
    throw forbidden('The subject and subjectAltName of the request must be those of the certificate being renewed.');
  }
  return stored;
}

/** The device renewing, named by the certificate it authenticated with, from `address`. */
export function renewalActor(renewed: CertificateRecord, address: string | null): Actor {
  const actor: Actor = { type: 'certificate', name: renewed.serial, protocol: 'est' };
  return address ? { ...actor, address } : actor;
}
