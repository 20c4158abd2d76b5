/**
 * EST server-side key generation (RFC 7030 §4.4): the client's PKCS#10 with a key pair the server
 * made in its place. The new request keeps the client's subject and attributes byte for byte (so its
 * extensionRequest, and with it the subjectAltName, is what the client asked for), carries the new
 * public key and is signed with the new private key — so the one issuance service signs it as any
 * other request (docs/DESIGN.md "Issuance service").
 *
 * The key is of the client's key's kind (docs/guides/est.md): RSA of the same modulus size, EC on the same
 * named curve, Ed25519 or Ed448.
 */
import * as crypto from 'crypto';
import { encodeSignatureAlgorithm, signatureAlgorithmFor } from './algorithms';
import { toDer } from './asn1';
import { tlv } from './der-writer';
import { X509Error, parseError } from './errors';
import { generatePrivateKey, keyTypeOf, publicKeyDer } from './keys';
import { contentToOid } from './oid-der';
import type { PublicKeyInfo } from './public-key';
import { readSignedEnvelope, readTlv, readTlvChildren } from './tlv';
import type { KeySpec } from './types';

/** id-aa-decryptKeyID and id-aa-asymmDecryptKeyID: a request for the key encrypted (RFC 7030 §4.4.1.1, §4.4.1.2). */
export const OID_DECRYPT_KEY_IDENTIFIER = '1.2.840.113549.1.9.16.2.37';
export const OID_ASYMMETRIC_DECRYPT_KEY_IDENTIFIER = '1.2.840.113549.1.9.16.2.54';

const SEQUENCE = 0x30;
const BIT_STRING = 0x03;

/** The CertificationRequestInfo fields of `der` (a CSR `parseCsr` has accepted). */
function infoFields(der: Buffer): Buffer[] {
  const [info] = readSignedEnvelope(der, 'certificate signing request');
  const fields = readTlvChildren(der, info, 'CertificationRequestInfo');
  if (fields.length < 3 || fields.length > 4) throw parseError('CertificationRequestInfo: malformed');
  return fields.map((t) => der.subarray(t.start, t.end));
}

/** The attribute types (OIDs) of the CSR `der`, in order. */
export function csrAttributeTypes(der: Buffer): string[] {
  const attributes = infoFields(der)[3];
  if (!attributes) return [];
  const set = readTlv(attributes, 0, attributes.length, 'CSR attributes');
  return readTlvChildren(attributes, set, 'CSR attributes').map((attribute) => {
    const [type] = readTlvChildren(attributes, attribute, 'CSR attribute');
    if (!type) throw parseError('CSR attribute: malformed');
    return contentToOid(attributes.subarray(type.contentStart, type.end), 'CSR attribute type');
  });
}

/** A key of the kind of `publicKey` (the client's): RSA of its size, EC on its curve, EdDSA alike. */
export function keySpecLike(publicKey: PublicKeyInfo): KeySpec {
  switch (publicKey.keyType) {
    case 'RSA':
      return { keyType: 'RSA', keySize: publicKey.keySize };
    case 'EC':
      if (!publicKey.curve) throw new X509Error('unsupported', 'The request’s EC key is on a curve this server does not generate keys on.');
      return { keyType: 'EC', curve: publicKey.curve };
    case 'Ed25519':
    case 'Ed448':
      return { keyType: publicKey.keyType };
    default:
      throw new X509Error('unsupported', `The server does not generate ${publicKey.keyType} keys: send an RSA, EC or EdDSA key's request.`);
  }
}

/** A fresh private key of the kind of `publicKey` (`generateKeyPairSync`). */
export function generateKeyLike(publicKey: PublicKeyInfo): crypto.KeyObject {
  return generatePrivateKey(keySpecLike(publicKey));
}

/** The CSR `der` with `privateKey`'s public key in place of its own, signed by `privateKey` (SHA-256; EdDSA pure). */
export function reKeyedCsr(der: Buffer, privateKey: crypto.KeyObject): Buffer {
  const [version, subject, , attributes] = infoFields(der);
  const info = tlv(SEQUENCE, version, subject, publicKeyDer(privateKey), ...(attributes ? [attributes] : []));
  const keyType = keyTypeOf(privateKey);
  const edwards = keyType === 'Ed25519' || keyType === 'Ed448';
  const algorithm = signatureAlgorithmFor(keyType, { hash: edwards ? null : 'SHA-256' });
  const signature = crypto.sign(edwards ? null : 'sha256', info, privateKey);
  return tlv(SEQUENCE, info, toDer(encodeSignatureAlgorithm(algorithm)), tlv(BIT_STRING, Buffer.from([0]), signature));
}
