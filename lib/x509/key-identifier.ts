/** Key identifiers for the Subject/Authority Key Identifier extensions. */
import { hash } from 'crypto';
import { readTlv, readTlvChildren } from './asn1';
import { parseError } from './errors';

const SEQUENCE = 0x30;
const BIT_STRING = 0x03;

/**
 * RFC 5280 §4.2.1.2 method 1: the SHA-1 hash of the subjectPublicKey BIT STRING's contents (without
 * the tag, length and unused-bits octet) of a SubjectPublicKeyInfo. This is what upstream (and
 * OpenSSL's `subjectKeyIdentifier=hash`) computes.
 *
 * Computed for every certificate issued, so it walks the DER directly instead of building a tree.
 */
export function subjectKeyIdentifier(spkiDer: Buffer): Buffer {
  const what = 'SubjectPublicKeyInfo';
  const spki = readTlv(spkiDer, 0, spkiDer.length, what);
  if (spki.tag !== SEQUENCE || spki.end !== spkiDer.length) throw parseError(`${what}: expected one SEQUENCE`);
  const fields = readTlvChildren(spkiDer, spki, what);
  const key = fields[1];
  if (fields.length !== 2 || fields[0].tag !== SEQUENCE || key.tag !== BIT_STRING || key.end === key.contentStart) {
    throw parseError(`${what}: expected SEQUENCE { AlgorithmIdentifier, BIT STRING }`);
  }
  // Skip the unused-bits octet (always 0 for keys).
  return hash('sha1', spkiDer.subarray(key.contentStart + 1, key.end), 'buffer');
}
