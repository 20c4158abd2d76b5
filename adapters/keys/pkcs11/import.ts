/**
 * The objects of an imported key pair (PKCS#11 v2.40 §2.1.3, §2.3.4; v3.0 §2.3.7): the private key's
 * components from its JWK, created with C_CreateObject as a sensitive, non-extractable token object.
 * The token marks it not CKA_ALWAYS_SENSITIVE (its value was once outside), which is the truth.
 * Tokens that refuse to create private keys (many production HSMs allow only unwrapping) answer with
 * an error the backend reports as "the token does not allow importing keys".
 */
import type * as crypto from 'crypto';
import { keyTypeOf } from '../../../lib/x509/keys';
import { offeredCurveByOid, OFFERED_CURVES, OFFERED_CURVE_NAMES } from '../../../lib/x509/curves';
import type { KeyType } from '../../../lib/x509/types';
import { CKK_EC_EDWARDS, type Binding, type Template } from './binding';
import { octets } from '../../../lib/x509/revocation/der';
import { EC_PARAMS } from './public-key';
import { privateKeyAttributes, publicKeyAttributes, type KeyRef } from './templates';

export interface ImportObjects {
  keyType: KeyType;
  curve?: string;
  privateTemplate: Template;
  publicTemplate: Template;
  /** Overwrite the plaintext components once the objects exist. */
  wipe: () => void;
}

const unb64 = (value: string | undefined) => Buffer.from(value ?? '', 'base64url');

export function importObjects(b: Binding, key: crypto.KeyObject, ref: KeyRef): ImportObjects {
  const keyType = keyTypeOf(key);
  if (!['RSA', 'EC', 'Ed25519', 'Ed448'].includes(keyType)) {
    throw new Error(`${keyType} keys cannot be imported into the HSM (RSA, EC, Ed25519 and Ed448 can).`);
  }
  const jwk = key.export({ format: 'jwk' });
  const secrets: Buffer[] = [];
  const secret = (value: string | undefined) => {
    const buffer = unb64(value);
    secrets.push(buffer);
    return buffer;
  };
  const privateTemplate = privateKeyAttributes(b, ref);
  const publicTemplate = publicKeyAttributes(b, ref);
  let curve: string | undefined;
  if (keyType === 'RSA') {
    const publicParts = [
      { type: b.CKA_MODULUS, value: unb64(jwk.n) },
      { type: b.CKA_PUBLIC_EXPONENT, value: unb64(jwk.e) },
    ];
    privateTemplate.push(
      { type: b.CKA_KEY_TYPE, value: b.CKK_RSA },
      ...publicParts,
      { type: b.CKA_PRIVATE_EXPONENT, value: secret(jwk.d) },
      { type: b.CKA_PRIME_1, value: secret(jwk.p) },
      { type: b.CKA_PRIME_2, value: secret(jwk.q) },
      { type: b.CKA_EXPONENT_1, value: secret(jwk.dp) },
      { type: b.CKA_EXPONENT_2, value: secret(jwk.dq) },
      { type: b.CKA_COEFFICIENT, value: secret(jwk.qi) },
    );
    publicTemplate.push({ type: b.CKA_KEY_TYPE, value: b.CKK_RSA }, ...publicParts);
  } else if (keyType === 'EC') {
    const name = OFFERED_CURVE_NAMES.find((n) => OFFERED_CURVES[n].jwk.crv === jwk.crv);
    if (!name || !offeredCurveByOid(OFFERED_CURVES[name].oid))
      throw new Error(`EC keys on ${String(jwk.crv)} cannot be imported into the HSM.`);
    curve = name;
    const point = Buffer.concat([Buffer.from([4]), unb64(jwk.x), unb64(jwk.y)]);
    privateTemplate.push(
      { type: b.CKA_KEY_TYPE, value: b.CKK_EC },
      { type: b.CKA_EC_PARAMS, value: EC_PARAMS[name] },
      { type: b.CKA_VALUE, value: secret(jwk.d) },
    );
    publicTemplate.push(
      { type: b.CKA_KEY_TYPE, value: b.CKK_EC },
      { type: b.CKA_EC_PARAMS, value: EC_PARAMS[name] },
      { type: b.CKA_EC_POINT, value: octets(point) },
    );
  } else if (keyType === 'Ed25519' || keyType === 'Ed448') {
    const params = { type: b.CKA_EC_PARAMS, value: EC_PARAMS[keyType] };
    privateTemplate.push({ type: b.CKA_KEY_TYPE, value: CKK_EC_EDWARDS }, params, { type: b.CKA_VALUE, value: secret(jwk.d) });
    publicTemplate.push({ type: b.CKA_KEY_TYPE, value: CKK_EC_EDWARDS }, params, {
      type: b.CKA_EC_POINT,
      value: octets(unb64(jwk.x)),
    });
  } else {
    throw new Error(`${keyType} keys cannot be imported into the HSM (RSA, EC, Ed25519 and Ed448 can).`);
  }
  return { keyType, curve, privateTemplate, publicTemplate, wipe: () => secrets.forEach((s) => s.fill(0)) };
}
