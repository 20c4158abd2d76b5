/**
 * A Node `KeyObject` for a SubjectPublicKeyInfo, for verifying signatures (CSR self-signatures).
 *
 * Why not simply `createPublicKey({ format: 'der', type: 'spki' })`: with OpenSSL 3 that goes through
 * the generic decoder chain and costs about 0.2 ms per key, more than the verification itself. The
 * same key given as a JWK skips the decoders: about 0.015 ms for RSA and Ed25519, 0.1 ms for EC (the
 * point is still checked). Keys a JWK cannot express (RSASSA-PSS keys, DSA, compressed EC points,
 * curves without a JWK name) take the DER path, so the result is the same key either way.
 */
import * as crypto from 'crypto';
import { readTlv, readTlvChildren, oidFromContent, type Tlv } from './asn1';
import { offeredCurveByOid } from './curves';
import { OID_EC_PUBLIC_KEY, OID_ED25519, OID_ED448, OID_RSA_ENCRYPTION } from './key-algorithm-oids';

const b64u = (bytes: Buffer) => bytes.toString('base64url');

/** Unsigned big-endian bytes of a DER INTEGER (its sign byte dropped). */
function unsigned(der: Buffer, t: Tlv): Buffer {
  let start = t.contentStart;
  while (start < t.end - 1 && der[start] === 0) start++;
  return der.subarray(start, t.end);
}

/** The JWK of a SubjectPublicKeyInfo, or null when only the DER form can express it. */
function jwkOf(spki: Buffer): crypto.JsonWebKey | null {
  const top = readTlv(spki, 0, spki.length, 'SubjectPublicKeyInfo');
  if (top.tag !== 0x30 || top.end !== spki.length) return null;
  const [algId, bits, extra] = readTlvChildren(spki, top, 'SubjectPublicKeyInfo');
  if (!algId || !bits || extra || algId.tag !== 0x30 || bits.tag !== 0x03 || spki[bits.contentStart] !== 0) return null;
  const [oidTlv, params] = readTlvChildren(spki, algId, 'AlgorithmIdentifier');
  if (!oidTlv || oidTlv.tag !== 0x06) return null;
  const oid = oidFromContent(spki.subarray(oidTlv.contentStart, oidTlv.end));
  const key = spki.subarray(bits.contentStart + 1, bits.end);
  switch (oid) {
    case OID_RSA_ENCRYPTION: {
      const seq = readTlv(spki, bits.contentStart + 1, bits.end, 'RSAPublicKey');
      const [n, e, more] = readTlvChildren(spki, seq, 'RSAPublicKey');
      if (seq.tag !== 0x30 || !n || !e || more || n.tag !== 0x02 || e.tag !== 0x02) return null;
      return { kty: 'RSA', n: b64u(unsigned(spki, n)), e: b64u(unsigned(spki, e)) };
    }
    case OID_EC_PUBLIC_KEY: {
      if (!params || params.tag !== 0x06) return null;
      const curve = offeredCurveByOid(oidFromContent(spki.subarray(params.contentStart, params.end)))?.jwk;
      if (!curve || key.length !== 1 + 2 * curve.bytes || key[0] !== 0x04) return null; // uncompressed only
      return { kty: 'EC', crv: curve.crv, x: b64u(key.subarray(1, 1 + curve.bytes)), y: b64u(key.subarray(1 + curve.bytes)) };
    }
    case OID_ED25519:
      return params ? null : { kty: 'OKP', crv: 'Ed25519', x: b64u(key) };
    case OID_ED448:
      return params ? null : { kty: 'OKP', crv: 'Ed448', x: b64u(key) };
    default:
      return null;
  }
}

/** The JWK of a SubjectPublicKeyInfo where one expresses it (the fast way to load it), else null. */
export function publicKeyJwk(spkiDer: Buffer): crypto.JsonWebKey | null {
  try {
    return jwkOf(spkiDer);
  } catch {
    return null; // malformed: let OpenSSL's decoder produce the error
  }
}

/** The public key of `spkiDer` as a KeyObject; throws (like `createPublicKey`) when it is not one. */
export function publicKeyObject(spkiDer: Buffer): crypto.KeyObject {
  const jwk = publicKeyJwk(spkiDer);
  if (jwk) {
    try {
      return crypto.createPublicKey({ key: jwk, format: 'jwk' });
    } catch {
      // e.g. a point that is not on the curve: the DER path gives OpenSSL's own message
    }
  }
  return crypto.createPublicKey({ key: spkiDer, format: 'der', type: 'spki' });
}
