/**
 * Does an OCSP CertID name a certificate of this issuer? RFC 6960 §4.1.1: `issuerNameHash` is the
 * hash of the issuer's DN (DER) and `issuerKeyHash` the hash of its public key (the BIT STRING value
 * of subjectPublicKey), both with the CertID's own hash algorithm.
 */
import { createHash, timingSafeEqual } from 'crypto';
import type { CertId } from './ocsp-request';
import { keyHash } from './ocsp-response';

function same(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

export function certIdMatchesIssuer(certId: CertId, issuerNameDer: Buffer, issuerSpkiDer: Buffer): boolean {
  if (!certId.hash) return false;
  const nameHash = createHash(certId.hash).update(issuerNameDer).digest();
  return same(nameHash, certId.issuerNameHash) && same(keyHash(issuerSpkiDer, certId.hash), certId.issuerKeyHash);
}
