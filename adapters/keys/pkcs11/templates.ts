/**
 * Attribute templates of the keys this backend makes (PKCS#11 v2.40 §4.8, §4.9): private keys are
 * token objects, private (login required), CKA_SENSITIVE and not CKA_EXTRACTABLE — the token never
 * hands out their value, wrapped or not — and may only sign; a SCEP RA's RSA key (`decrypt`) may also
 * decrypt, the key transport of requests encrypted to it (RFC 8894 §3.2.2; never unwrap or derive).
 * Both halves of a pair carry the same CKA_ID and CKA_LABEL, by which the backend finds them again.
 */
import type { KeySpec } from '../../../lib/x509/types';
import { CKK_EC_EDWARDS, CKM_EC_EDWARDS_KEY_PAIR_GEN, type Binding, type Mechanism, type Template } from './binding';
import { EC_PARAMS } from './public-key';

export interface KeyRef {
  id: Buffer;
  label: string;
}

export function privateKeyAttributes(b: Binding, ref: KeyRef, decrypt = false): Template {
  return [
    { type: b.CKA_CLASS, value: b.CKO_PRIVATE_KEY },
    { type: b.CKA_TOKEN, value: true },
    { type: b.CKA_PRIVATE, value: true },
    { type: b.CKA_SENSITIVE, value: true },
    { type: b.CKA_EXTRACTABLE, value: false },
    { type: b.CKA_SIGN, value: true },
    { type: b.CKA_DECRYPT, value: decrypt },
    { type: b.CKA_UNWRAP, value: false },
    { type: b.CKA_DERIVE, value: false },
    { type: b.CKA_LABEL, value: ref.label },
    { type: b.CKA_ID, value: ref.id },
  ];
}

export function publicKeyAttributes(b: Binding, ref: KeyRef): Template {
  return [
    { type: b.CKA_CLASS, value: b.CKO_PUBLIC_KEY },
    { type: b.CKA_TOKEN, value: true },
    { type: b.CKA_PRIVATE, value: false },
    { type: b.CKA_VERIFY, value: true },
    { type: b.CKA_ENCRYPT, value: false },
    { type: b.CKA_WRAP, value: false },
    { type: b.CKA_LABEL, value: ref.label },
    { type: b.CKA_ID, value: ref.id },
  ];
}

/** The mechanism and templates that generate a key pair of `spec` in the token. */
export function generation(
  b: Binding,
  spec: KeySpec,
  ref: KeyRef,
  decrypt = false,
): { mechanism: Mechanism; publicTemplate: Template; privateTemplate: Template } {
  const privateTemplate = privateKeyAttributes(b, ref, decrypt);
  const publicTemplate = publicKeyAttributes(b, ref);
  switch (spec.keyType) {
    case 'RSA':
      publicTemplate.push(
        { type: b.CKA_MODULUS_BITS, value: spec.keySize },
        { type: b.CKA_PUBLIC_EXPONENT, value: Buffer.from([1, 0, 1]) },
      );
      return { mechanism: { mechanism: b.CKM_RSA_PKCS_KEY_PAIR_GEN }, publicTemplate, privateTemplate };
    case 'EC':
      publicTemplate.push({ type: b.CKA_EC_PARAMS, value: EC_PARAMS[spec.curve] });
      return { mechanism: { mechanism: b.CKM_EC_KEY_PAIR_GEN }, publicTemplate, privateTemplate };
    case 'Ed25519':
    case 'Ed448':
      publicTemplate.push({ type: b.CKA_EC_PARAMS, value: EC_PARAMS[spec.keyType] });
      privateTemplate.push({ type: b.CKA_KEY_TYPE, value: CKK_EC_EDWARDS });
      return { mechanism: { mechanism: CKM_EC_EDWARDS_KEY_PAIR_GEN }, publicTemplate, privateTemplate };
    default:
      throw new Error(`${spec.keyType} keys are not supported by the PKCS#11 key backend (RSA, EC, Ed25519 and Ed448 are).`);
  }
}
