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

const BYTE_HEX: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).toUpperCase().padStart(2, '0'));

/** Upper-case hex bytes joined by ':'. */
export function colonHex(bytes: Uint8Array): string {
  if (bytes.length === 0) return '';
  let out = BYTE_HEX[bytes[0]];
  for (let i = 1; i < bytes.length; i++) out += ':' + BYTE_HEX[bytes[i]];
  return out;
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
