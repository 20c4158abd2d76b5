/**
 * Facts about a CA that signing needs, read from its stored certificate: key type, default hash, the
 * key identifier for AKI, the raw subject Name for the issuer field. The DER is parsed at most once
 * per CA certificate per process (a small cache keyed by the certificate's SHA-256).
 */
import type { CaRecord } from '../ports';
import { parseCertificate } from '../x509/certificate';
import { subjectKeyIdentifier } from '../x509/key-identifier';
import type { HashAlgorithmName, KeyType } from '../x509/types';
import { isHashAlgorithm } from './profiles';

export interface CaFacts {
  keyType: KeyType;
  /** SubjectPublicKeyInfo DER of the CA key. */
  publicKeyDer: Buffer;
  /** The CA certificate's subject Name, byte for byte (becomes the issuer of what it signs). */
  subjectDer: Buffer;
  /** Base64 key identifier: the CA's SKI if it has one, else computed (RFC 5280 method 1). */
  keyIdentifier: string;
  /** Path length of the CA's Basic Constraints (null = unlimited or absent). */
  pathLength: number | null;
  /** Hash of the CA certificate's own signature (docs/COMPATIBILITY.md §3.4), null for EdDSA. */
  signatureHash: string | null;
}

const cache = new Map<string, CaFacts>();
const CACHE_LIMIT = 256;

export function caFacts(ca: Pick<CaRecord, 'der' | 'fingerprints' | 'certificate'>): CaFacts {
  const key = ca.fingerprints['SHA-256'];
  const hit = cache.get(key);
  if (hit) return hit;
  const parsed = parseCertificate(ca.der);
  const ski = parsed.extensions.find((e) => e.type === 'subject_key_identifier');
  const bc = parsed.extensions.find((e) => e.type === 'basic_constraints');
  const facts: CaFacts = {
    keyType: parsed.publicKey.keyType,
    publicKeyDer: parsed.publicKey.der,
    subjectDer: parsed.subjectDer,
    keyIdentifier: ski ? (ski.value as string) : subjectKeyIdentifier(parsed.publicKey.der).toString('base64'),
    pathLength: bc ? ((bc.value as { path_length: number | null }).path_length ?? null) : null,
    signatureHash: parsed.json.signature_hash_algorithm,
  };
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, facts);
  return facts;
}

export function isEdwards(keyType: KeyType): boolean {
  return keyType === 'Ed25519' || keyType === 'Ed448';
}

/**
 * Hash used when a request names none (docs/COMPATIBILITY.md §3.4): the hash of the CA certificate's own
 * signature; SHA-512 (SHA-256 for DSA) when that is none of the signing hashes — EdDSA-signed CA
 * certificates, and legacy MD5/SHA1 ones, which we do not perpetuate.
 */
export function defaultHashFor(keyType: KeyType, caSignatureHash: string | null): HashAlgorithmName | null {
  if (isEdwards(keyType)) return null;
  if (isHashAlgorithm(caSignatureHash)) return caSignatureHash;
  return keyType === 'DSA' ? 'SHA-256' : 'SHA-512';
}
