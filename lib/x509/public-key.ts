/**
 * SubjectPublicKeyInfo (RFC 5280 §4.1.2.7): what kind of key, how big, which curve.
 *
 * Read straight from the DER (no key object is built): this runs for every certificate we parse, and
 * the key itself is only needed when something is verified — then node:crypto loads and checks it.
 */
import { Tlv, oidFromContent, readTlv, readTlvChildren } from './asn1';
import { DER_TAG, expectTag } from './tlv';
import { X509Error, parseError } from './errors';
import type { EllipticCurveName, KeyType } from './types';
import { CURVES_BY_OID } from './curves';
import { OID_DSA, OID_EC_PUBLIC_KEY, OID_ED25519, OID_ED448, OID_RSA_ENCRYPTION, OID_RSASSA_PSS } from './key-algorithm-oids';

export interface PublicKeyInfo {
  keyType: KeyType;
  /** The key's algorithm OID (rsaEncryption, id-RSASSA-PSS, id-ecPublicKey, id-dsa, Ed25519, Ed448). */
  oid: string;
  /** Modulus bits (RSA), p bits (DSA), field bits (EC), 256 (Ed25519), 448 (Ed448). */
  keySize: number;
  /** Named curve of an EC key, when it is one of the API's curves. */
  curve?: EllipticCurveName;
  /** The SubjectPublicKeyInfo DER. */
  der: Buffer;
}

const { SEQUENCE: TAG_SEQUENCE, INTEGER: TAG_INTEGER, OID: TAG_OID, BIT_STRING: TAG_BIT_STRING, NULL: TAG_NULL } = DER_TAG;

function oidAt(buf: Buffer, t: Tlv, what: string): string {
  expectTag(t, TAG_OID, what);
  return oidFromContent(buf.subarray(t.contentStart, t.end), what);
}

/** Bit length of a positive INTEGER's content. */
function integerBits(buf: Buffer, t: Tlv, what: string): number {
  expectTag(t, TAG_INTEGER, what);
  let i = t.contentStart;
  if (i === t.end) throw parseError(`${what}: empty INTEGER`);
  if (buf[i] & 0x80) throw parseError(`${what}: negative INTEGER`);
  while (i < t.end && buf[i] === 0) i++;
  if (i === t.end) return 0;
  return (t.end - i - 1) * 8 + (32 - Math.clz32(buf[i]));
}

/** Parse a SubjectPublicKeyInfo. Unknown key algorithms → X509Error('unsupported'). */
export function parsePublicKeyInfo(spkiDer: Buffer): PublicKeyInfo {
  const what = 'SubjectPublicKeyInfo';
  const top = readTlv(spkiDer, 0, spkiDer.length, what);
  if (top.end !== spkiDer.length) throw parseError(`${what}: trailing bytes`);
  expectTag(top, TAG_SEQUENCE, what);
  const [algId, bits, extra] = readTlvChildren(spkiDer, top, what);
  if (extra) throw parseError(`${what}: unexpected structure`);
  const [algOidTlv, params, more] = readTlvChildren(spkiDer, expectTag(algId, TAG_SEQUENCE, what), what);
  if (more) throw parseError(`${what}: malformed AlgorithmIdentifier`);
  const algOid = oidAt(spkiDer, algOidTlv, what);
  expectTag(bits, TAG_BIT_STRING, what);
  if (bits.end - bits.contentStart < 2 || spkiDer[bits.contentStart] !== 0) {
    throw parseError(`${what}: malformed public key BIT STRING`);
  }
  const keyBytes: Tlv = { tag: 0, start: bits.contentStart + 1, contentStart: bits.contentStart + 1, end: bits.end };
  const der = spkiDer;

  switch (algOid) {
    case OID_RSA_ENCRYPTION:
    case OID_RSASSA_PSS: {
      if (algOid === OID_RSA_ENCRYPTION && (!params || params.tag !== TAG_NULL)) {
        throw parseError(`${what}: rsaEncryption requires NULL parameters`);
      }
      const rsaKey = readTlv(spkiDer, keyBytes.start, keyBytes.end, 'RSAPublicKey');
      if (rsaKey.end !== keyBytes.end) throw parseError('RSAPublicKey: trailing bytes');
      const [n, e] = readTlvChildren(spkiDer, expectTag(rsaKey, TAG_SEQUENCE, 'RSAPublicKey'), 'RSAPublicKey');
      expectTag(e, TAG_INTEGER, 'RSAPublicKey');
      return { keyType: 'RSA', oid: algOid, keySize: integerBits(spkiDer, n, 'RSA modulus'), der };
    }
    case OID_EC_PUBLIC_KEY: {
      if (!params || params.tag !== TAG_OID) {
        throw new X509Error('unsupported', `${what}: only named elliptic curves are supported`);
      }
      const curveOid = oidAt(spkiDer, params, what);
      const curve = CURVES_BY_OID[curveOid];
      if (!curve) throw new X509Error('unsupported', `unsupported elliptic curve ${curveOid}`);
      return curve.name
        ? { keyType: 'EC', oid: algOid, keySize: curve.bits, curve: curve.name, der }
        : { keyType: 'EC', oid: algOid, keySize: curve.bits, der };
    }
    case OID_DSA: {
      if (!params || params.tag !== TAG_SEQUENCE) throw parseError(`${what}: DSA key without parameters`);
      const [p] = readTlvChildren(spkiDer, params, 'DSA parameters');
      return { keyType: 'DSA', oid: algOid, keySize: integerBits(spkiDer, p, 'DSA p'), der };
    }
    case OID_ED25519:
      if (params || keyBytes.end - keyBytes.start !== 32) throw parseError(`${what}: malformed Ed25519 key`);
      return { keyType: 'Ed25519', oid: algOid, keySize: 256, der };
    case OID_ED448:
      if (params || keyBytes.end - keyBytes.start !== 57) throw parseError(`${what}: malformed Ed448 key`);
      return { keyType: 'Ed448', oid: algOid, keySize: 448, der };
    default:
      throw new X509Error('unsupported', `unsupported public key algorithm ${algOid}`);
  }
}
