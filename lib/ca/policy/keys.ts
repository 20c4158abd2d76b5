/**
 * Which public keys a CA certifies (docs/guides/issuance-policy.md): RSA of at least 2048 bits, EC on
 * P-256, P-384 or P-521, Ed25519 and Ed448 — the keys of the CA/Browser Forum's Baseline Requirements
 * §6.1.5 and RFC 8410. Weaker keys (RSA-1024 and below, P-192, DSA) are refused at every way in, as
 * ACME refused them from the start (RFC 8555 §7.4 `badPublicKey`).
 */
import type { PublicKeyInfo } from '../../x509/public-key';

/** The fewest RSA bits any CA certifies; a CA's own policy may ask for more (ca-keys.ts), never fewer. */
export const MIN_RSA_BITS = 2048;
const CURVES: ReadonlySet<string> = new Set(['secp256r1', 'secp384r1', 'secp521r1']);

/** The accepted keys, in words, for refusals and documentation. */
export const ACCEPTED_KEYS = `RSA ≥ ${MIN_RSA_BITS} bits, EC P-256/P-384/P-521, Ed25519 or Ed448`;

/** Whether a certificate may carry `key`. */
export function isAcceptedKey(key: Pick<PublicKeyInfo, 'keyType' | 'keySize' | 'curve'>): boolean {
  switch (key.keyType) {
    case 'RSA':
      return key.keySize >= MIN_RSA_BITS;
    case 'EC':
      return key.curve !== undefined && CURVES.has(key.curve);
    case 'Ed25519':
    case 'Ed448':
      return true;
    default:
      return false;
  }
}

/** The key in words: "an RSA key of 1024 bits", "an EC key on secp192r1". */
export function describeKey(key: Pick<PublicKeyInfo, 'keyType' | 'keySize' | 'curve'>): string {
  if (key.keyType === 'EC') return `an EC key ${key.curve ? `on ${key.curve}` : `of ${key.keySize} bits on a curve not accepted`}`;
  return `${key.keyType === 'RSA' ? 'an' : 'a'} ${key.keyType} key of ${key.keySize} bits`;
}
