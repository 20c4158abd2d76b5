/**
 * What CMS needs of a certificate to name it and use its key: the issuer and serialNumber TLVs that
 * make up an IssuerAndSerialNumber (RFC 5652 §10.2.4) — taken byte for byte from the TBSCertificate,
 * because recipients and verifiers compare them as bytes — and the RSA public key.
 */
import { type KeyObject, createPublicKey } from 'crypto';
import { X509Error, parseError } from '../errors';
import { DER_TAG, expectTag, readSignedEnvelope, readTlvChildren } from '../tlv';
import { tlvBytes } from './cms-reader';

export interface CertificateIdentity {
  /** The issuer Name TLV. */
  issuer: Buffer;
  /** The serialNumber INTEGER TLV. */
  serial: Buffer;
  /** `issuer ‖ serial`: the content octets of the certificate's IssuerAndSerialNumber. */
  issuerAndSerial: Buffer;
  /** SubjectPublicKeyInfo DER. */
  spki: Buffer;
}

const TAG_VERSION = 0xa0; // TBSCertificate version [0] EXPLICIT, absent for v1 (RFC 5280 §4.1)

/** Read the identity fields of a DER certificate; malformed → X509Error (parse). */
export function certificateIdentity(certificateDer: Buffer): CertificateIdentity {
  const [tbs] = readSignedEnvelope(certificateDer, 'certificate');
  const fields = readTlvChildren(certificateDer, tbs, 'TBSCertificate');
  const at = fields[0]?.tag === TAG_VERSION ? 1 : 0;
  const serial = tlvBytes(certificateDer, expectTag(fields[at], DER_TAG.INTEGER, 'certificate serialNumber'));
  const issuer = tlvBytes(certificateDer, expectTag(fields[at + 2], DER_TAG.SEQUENCE, 'certificate issuer'));
  const spki = tlvBytes(certificateDer, expectTag(fields[at + 5], DER_TAG.SEQUENCE, 'certificate subjectPublicKeyInfo'));
  return { issuer, serial, issuerAndSerial: Buffer.concat([issuer, serial]), spki };
}

/**
 * Keys read lately, by SubjectPublicKeyInfo: a PKIOperation reads the RA's key and the requester's
 * twice (to verify its signature, to encrypt the answer), and OpenSSL 3 takes longer to decode an
 * RSA key than to use it once. Small: the RA keys and the requests in flight.
 */
const recentKeys = new Map<string, KeyObject>();
const RECENT_KEYS = 64;

/** The RSA public key of a SubjectPublicKeyInfo; another key type → X509Error (unsupported). */
export function rsaPublicKey(spki: Buffer, what: string): KeyObject {
  const id = spki.toString('base64');
  let key = recentKeys.get(id);
  if (!key) {
    try {
      key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    } catch {
      throw parseError(`${what}: unreadable public key`);
    }
    if (recentKeys.size >= RECENT_KEYS) recentKeys.delete(recentKeys.keys().next().value as string);
  } else {
    recentKeys.delete(id); // to the back: most recently used
  }
  recentKeys.set(id, key);
  if (key.asymmetricKeyType !== 'rsa') throw new X509Error('unsupported', `${what}: an RSA key is required, not ${key.asymmetricKeyType}`);
  return key;
}

/** k, the length in octets of the RSA modulus (RFC 8017 §2). */
export function rsaModulusLength(key: KeyObject): number {
  return Math.ceil((key.asymmetricKeyDetails?.modulusLength ?? 0) / 8);
}
