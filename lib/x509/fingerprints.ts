/**
 * Certificate fingerprints (docs/COMPATIBILITY.md §2): digests of the DER certificate as upper-case hex
 * bytes joined by ':'.
 */
import * as crypto from 'crypto';
import { nodeHashName } from './algorithms';
import { HASH_ALGORITHMS, type Fingerprints, type HashAlgorithmName } from './types';

/** The API's fingerprint keys, in emission order (docs/COMPATIBILITY.md §2), with their digest names. */
const FINGERPRINT_ALGORITHMS: readonly (readonly [HashAlgorithmName, string])[] = HASH_ALGORITHMS.map(
  (name) => [name, nodeHashName(name)] as const,
);

/** The two ASCII hex digits of each byte value, upper case. */
const HEX_DIGITS = Buffer.from('0123456789ABCDEF', 'latin1');

/**
 * Upper-case hex bytes joined by ':'. Written into one buffer and decoded once: eight fingerprints
 * per issued certificate made this the largest allocation of issuance when built by concatenation.
 */
export function colonHex(bytes: Uint8Array): string {
  if (bytes.length === 0) return '';
  const out = Buffer.allocUnsafe(bytes.length * 3 - 1);
  for (let i = 0, at = 0; i < bytes.length; i++, at += 3) {
    out[at] = HEX_DIGITS[bytes[i] >> 4];
    out[at + 1] = HEX_DIGITS[bytes[i] & 15];
    if (at + 2 < out.length) out[at + 2] = 0x3a; // ':'
  }
  return out.toString('latin1');
}

/**
 * One digest. `crypto.hash` (Node ≥ 20.12) is the one-shot API: it skips the Hash object and its
 * stream machinery, which for certificate-sized input costs more than the hashing itself.
 */
function digest(nodeName: string, data: Buffer): Buffer {
  return crypto.hash(nodeName, data, 'buffer');
}

/** All eight API fingerprints, keys in the order of docs/COMPATIBILITY.md §2 */
export function fingerprints(der: Buffer): Fingerprints {
  const out = {} as Fingerprints;
  for (const [name, nodeName] of FINGERPRINT_ALGORITHMS) {
    out[name] = colonHex(digest(nodeName, der));
  }
  return out;
}

/** One fingerprint; MD5 and SHA1 are available for display and comparison only. */
export function fingerprint(der: Buffer, algorithm: 'MD5' | 'SHA1' | HashAlgorithmName): string {
  return colonHex(digest(nodeHashName(algorithm), der));
}
