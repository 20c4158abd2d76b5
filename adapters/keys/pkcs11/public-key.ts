/**
 * The SubjectPublicKeyInfo of a key pair in the token, read from its public key object: RSA from
 * CKA_MODULUS and CKA_PUBLIC_EXPONENT, EC and EdDSA from CKA_EC_POINT (PKCS#11 v2.40 §2.3.3, v3.0
 * §2.3.5: a DER OCTET STRING holding the point; some tokens give the bare point, accepted too).
 */
import * as crypto from 'crypto';
import type { KeyType } from '../../../lib/x509/types';
import type { EllipticCurveName } from '../../../lib/x509/curves';
import { OFFERED_CURVES } from '../../../lib/x509/curves';
import { OID_ED25519, OID_ED448 } from '../../../lib/x509/key-algorithm-oids';
import { oid } from '../../../lib/x509/revocation/der';
import type { Binding, Handle, Pkcs11Module } from './binding';

/** CKA_EC_PARAMS: the DER of the curve's OID (RFC 5480 §2.1.1 namedCurve; RFC 8410 §3 for EdDSA). */
export const EC_PARAMS: Record<EllipticCurveName | 'Ed25519' | 'Ed448', Buffer> = {
  secp256r1: oid(OFFERED_CURVES.secp256r1.oid),
  secp384r1: oid(OFFERED_CURVES.secp384r1.oid),
  secp521r1: oid(OFFERED_CURVES.secp521r1.oid),
  Ed25519: oid(OID_ED25519),
  Ed448: oid(OID_ED448),
};

/** The point inside a CKA_EC_POINT: unwrapped from its OCTET STRING when it is one. */
function unwrapPoint(value: Buffer, pointBytes: number): Buffer {
  if (value.length === pointBytes) return value;
  if (value[0] !== 0x04) return value;
  const first = value[1];
  const headerLength = first < 0x80 ? 2 : 2 + (first & 0x7f);
  return value.subarray(headerLength);
}

function attribute(m: Pkcs11Module, session: Handle, object: Handle, type: number): Buffer {
  const [found] = m.C_GetAttributeValue(session, object, [{ type }]);
  return found.value as Buffer;
}

const b64url = (value: Buffer) => value.toString('base64url');

export function readPublicKeyDer(
  b: Binding,
  m: Pkcs11Module,
  session: Handle,
  publicKey: Handle,
  keyType: KeyType,
  curve?: EllipticCurveName,
): Buffer {
  let jwk: crypto.JsonWebKey;
  if (keyType === 'RSA') {
    jwk = {
      kty: 'RSA',
      n: b64url(attribute(m, session, publicKey, b.CKA_MODULUS)),
      e: b64url(attribute(m, session, publicKey, b.CKA_PUBLIC_EXPONENT)),
    };
  } else if (keyType === 'EC') {
    const info = OFFERED_CURVES[curve as EllipticCurveName].jwk;
    const point = unwrapPoint(attribute(m, session, publicKey, b.CKA_EC_POINT), 1 + 2 * info.bytes);
    jwk = { kty: 'EC', crv: info.crv, x: b64url(point.subarray(1, 1 + info.bytes)), y: b64url(point.subarray(1 + info.bytes)) };
  } else {
    const bytes = keyType === 'Ed25519' ? 32 : 57;
    jwk = { kty: 'OKP', crv: keyType, x: b64url(unwrapPoint(attribute(m, session, publicKey, b.CKA_EC_POINT), bytes)) };
  }
  return crypto.createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'der' });
}

/** The curve of a CKA_EC_PARAMS value (null: not one of the offered curves). */
export function curveOfParams(params: Buffer): EllipticCurveName | null {
  for (const [name, der] of Object.entries(EC_PARAMS)) {
    if (der.equals(params) && name in OFFERED_CURVES) return name as EllipticCurveName;
  }
  return null;
}
