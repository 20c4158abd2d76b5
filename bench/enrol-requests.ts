/**
 * What bench/enrol.ts sends, made before the clock starts: EST's base64 P-256 CSRs (RFC 7030 §4.2.1)
 * and SCEP PKCSReq pkiMessages (RFC 8894 §3.2) written on lib/x509's DER writer and SCEP envelope,
 * each with its own CSR, transactionID and senderNonce. Not test/helpers/scep-request.ts: that one
 * shells out to openssl per request (too slow for thousands) and uses jest's `expect`.
 */
import * as crypto from 'crypto';
import { derOid, derSetOf, derSmallInteger, DER_NULL, tlv } from '../lib/x509/der-writer';
import { certificateIdentity } from '../lib/x509/scep/certificate-identity';
import { sealEnvelope } from '../lib/x509/scep/enveloped-data';

const OID = {
  commonName: '2.5.4.3',
  challengePassword: '1.2.840.113549.1.9.7',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha256: '2.16.840.1.101.3.4.2.1',
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  messageType: '2.16.840.1.113733.1.9.2',
  pkiStatus: '2.16.840.1.113733.1.9.3',
  senderNonce: '2.16.840.1.113733.1.9.5',
  transactionId: '2.16.840.1.113733.1.9.7',
} as const;

const printable = (text: string): Buffer => tlv(0x13, Buffer.from(text, 'latin1'));
const attribute = (oid: string, value: Buffer): Buffer => tlv(0x30, derOid(oid), tlv(0x31, value));

/** A DER PKCS#10 request of `key` for CN=`cn`, with `challenge` as challengePassword when given. */
export function csrDer(key: crypto.KeyObject, cn: string, challenge?: string): Buffer {
  const name = tlv(0x30, tlv(0x31, tlv(0x30, derOid(OID.commonName), tlv(0x0c, Buffer.from(cn, 'utf8')))));
  const spki = crypto.createPublicKey(key).export({ type: 'spki', format: 'der' });
  const attributes = tlv(0xa0, ...(challenge ? [attribute(OID.challengePassword, printable(challenge))] : []));
  const info = tlv(0x30, derSmallInteger(0), name, spki, attributes);
  const ec = key.asymmetricKeyType === 'ec';
  const algorithm = ec ? tlv(0x30, derOid(OID.ecdsaWithSha256)) : tlv(0x30, derOid(OID.sha256WithRsa), DER_NULL);
  const signature = crypto.sign('sha256', info, ec ? { key, dsaEncoding: 'der' } : key);
  return tlv(0x30, info, algorithm, tlv(0x03, Buffer.from([0]), signature));
}

/** `count` EST simpleenroll bodies: base64 DER CSRs of fresh P-256 keys (RFC 7030 §4.2.1). */
export function estBodies(count: number, prefix: string): Buffer[] {
  return Array.from({ length: count }, (_, i) => {
    const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return Buffer.from(csrDer(privateKey, `${prefix}-${i}.example.com`).toString('base64'));
  });
}

/** The requester of every PKCSReq: an RSA-2048 key and its self-signed certificate (DER). */
export interface Requester {
  key: crypto.KeyObject;
  certDer: Buffer;
}

/**
 * `count` PKCSReqs of `requester`, each a CSR of its own (CN `prefix-i.example.org`, `challenge`)
 * enveloped with AES-128-CBC to `recipientDer` (the RA, or scepserver's CA), signed with SHA-256.
 */
export function pkcsReqs(count: number, prefix: string, requester: Requester, recipientDer: Buffer, challenge: string): Buffer[] {
  const signerId = tlv(0x30, certificateIdentity(requester.certDer).issuerAndSerial);
  return Array.from({ length: count }, (_, i) => {
    const content = sealEnvelope(csrDer(requester.key, `${prefix}-${i}.example.org`, challenge), recipientDer, 'aes-128-cbc');
    const signedAttributes = derSetOf([
      attribute(OID.contentType, derOid(OID.data)),
      attribute(OID.messageDigest, tlv(0x04, crypto.createHash('sha256').update(content).digest())),
      attribute(OID.messageType, printable('19')),
      attribute(OID.transactionId, printable(crypto.randomBytes(20).toString('hex').toUpperCase())),
      attribute(OID.senderNonce, tlv(0x04, crypto.randomBytes(16))),
    ]);
    const signature = crypto.sign('sha256', signedAttributes, requester.key);
    const digestAlgorithm = tlv(0x30, derOid(OID.sha256), DER_NULL);
    const signerInfo = tlv(
      0x30,
      derSmallInteger(1),
      signerId,
      digestAlgorithm,
      Buffer.concat([Buffer.from([0xa0]), signedAttributes.subarray(1)]),
      tlv(0x30, derOid(OID.rsaEncryption), DER_NULL),
      tlv(0x04, signature),
    );
    const signedData = tlv(
      0x30,
      derSmallInteger(1),
      tlv(0x31, digestAlgorithm),
      tlv(0x30, derOid(OID.data), tlv(0xa0, tlv(0x04, content))),
      tlv(0xa0, requester.certDer),
      tlv(0x31, signerInfo),
    );
    return tlv(0x30, derOid(OID.signedData), tlv(0xa0, signedData));
  });
}

/** The pkiStatus attribute SUCCESS ("0") as DER writes it: a CertRep that holds it granted the request. */
const SUCCESS = attribute(OID.pkiStatus, printable('0'));

/** Whether a CertRep says SUCCESS (RFC 8894 §3.2.1.3); its certificate is read by the bench once per server. */
export function isSuccess(certRep: Buffer): boolean {
  return certRep.includes(SUCCESS);
}
