/**
 * The CertRep of SCEP (RFC 8894 §3.3.2): a CMS SignedData (RFC 5652 §5) signed by the RA with SHA-256,
 * carrying SCEP's signed attributes and — for a SUCCESS — an EnvelopedData to the requester holding a
 * certs-only bag with the issued certificate first. Written to what the deployed clients check:
 *
 * - exactly one SignerInfo, sid an IssuerAndSerialNumber copied byte for byte from the signer's
 *   certificate, signatureAlgorithm rsaEncryption with NULL — strongSwan 5.9 rejects
 *   sha256WithRSAEncryption there ("only RSA digest encryption supported");
 * - a PENDING or FAILURE with an empty eContent (not an absent one: OpenSSL's PKCS7 routines refuse a
 *   reply without content), its messageDigest the digest of nothing;
 * - failInfo with every FAILURE (micromdm's client refuses one without); the transactionID echoed,
 *   recipientNonce = the request's senderNonce, a fresh senderNonce;
 * - signed attributes in DER SET OF order, signed as the SET they form (RFC 5652 §5.4).
 */
import { createHash, randomBytes } from 'crypto';
import { certsOnlyPkcs7 } from '../pkcs7';
import { DER_NULL, derOid, derSetOf, derSmallInteger, tlv } from '../der-writer';
import type { Signer } from '../signer';
import { DER_TAG } from '../tlv';
import { X509Error } from '../errors';
import { certificateIdentity } from './certificate-identity';
import { sealEnvelope, type ScepCipher } from './enveloped-data';
import {
  OID_CONTENT_TYPE,
  OID_DATA,
  OID_MESSAGE_DIGEST,
  OID_RSA_ENCRYPTION,
  OID_SCEP_FAIL_INFO,
  OID_SCEP_FAIL_INFO_TEXT,
  OID_SCEP_MESSAGE_TYPE,
  OID_SCEP_PKI_STATUS,
  OID_SCEP_RECIPIENT_NONCE,
  OID_SCEP_SENDER_NONCE,
  OID_SCEP_TRANSACTION_ID,
  OID_SHA256,
  OID_SIGNED_DATA,
} from './oids';

/** RFC 8894 §3.2.1.4's failInfo values. */
export type ScepFailInfo = 'badAlg' | 'badMessageCheck' | 'badRequest' | 'badTime' | 'badCertId';

export interface CertRepInput {
  /** The RA (or CA) that decrypted the request: its certificate, the chain to send with it, its RSA key. */
  signer: { certificateDer: Buffer; chainDer: readonly Buffer[]; signer: Signer };
  transactionId: string;
  /** The request's senderNonce. */
  recipientNonce: Buffer;
  reply:
    | { status: 'SUCCESS'; certificates: readonly Buffer[]; crls?: readonly Buffer[]; recipientCertificateDer: Buffer; cipher: ScepCipher }
    | { status: 'PENDING' }
    | { status: 'FAILURE'; failInfo: ScepFailInfo; failInfoText?: string };
}

const STATUS = { SUCCESS: '0', FAILURE: '2', PENDING: '3' } as const;
const FAIL_INFO: Record<ScepFailInfo, string> = { badAlg: '0', badMessageCheck: '1', badRequest: '2', badTime: '3', badCertId: '4' };
const CERT_REP = '3';
const PRINTABLE_STRING = 0x13;
const UTF8_STRING = 0x0c;
const SET_TAG = 0x31;
const CONTEXT_0 = 0xa0;

const attribute = (oid: string, value: Buffer): Buffer => tlv(DER_TAG.SEQUENCE, derOid(oid), tlv(SET_TAG, value));
const printable = (text: string): Buffer => tlv(PRINTABLE_STRING, Buffer.from(text, 'latin1'));

/**
 * The DER CertRep for `input`. The transactionID must be printable ASCII (as `readPkiMessage` reads
 * it), so that it goes back as the same PrintableString octets; the signer's key must be RSA, the only
 * kind SCEP clients verify with (strongSwan 5.9 asks its credential store for RSA keys alone).
 */
export async function buildCertRep(input: CertRepInput): Promise<Buffer> {
  const { reply } = input;
  if (input.signer.signer.keyType !== 'RSA') throw new X509Error('unsupported', 'SCEP CertRep: the signer key must be RSA');
  if (!/^[\x20-\x7e]+$/.test(input.transactionId))
    throw new X509Error('validation', 'SCEP CertRep: the transactionID must be printable ASCII');
  const eContent =
    reply.status === 'SUCCESS'
      ? sealEnvelope(certsOnlyPkcs7(reply.certificates, reply.crls ?? []), reply.recipientCertificateDer, reply.cipher)
      : Buffer.alloc(0);

  const attributes = [
    attribute(OID_CONTENT_TYPE, derOid(OID_DATA)),
    attribute(OID_MESSAGE_DIGEST, tlv(DER_TAG.OCTET_STRING, createHash('sha256').update(eContent).digest())),
    attribute(OID_SCEP_MESSAGE_TYPE, printable(CERT_REP)),
    attribute(OID_SCEP_PKI_STATUS, printable(STATUS[reply.status])),
    attribute(OID_SCEP_TRANSACTION_ID, printable(input.transactionId)),
    attribute(OID_SCEP_SENDER_NONCE, tlv(DER_TAG.OCTET_STRING, randomBytes(16))),
    attribute(OID_SCEP_RECIPIENT_NONCE, tlv(DER_TAG.OCTET_STRING, input.recipientNonce)),
  ];
  if (reply.status === 'FAILURE') {
    attributes.push(attribute(OID_SCEP_FAIL_INFO, printable(FAIL_INFO[reply.failInfo])));
    if (reply.failInfoText) attributes.push(attribute(OID_SCEP_FAIL_INFO_TEXT, tlv(UTF8_STRING, Buffer.from(reply.failInfoText, 'utf8'))));
  }
  const signedAttributes = derSetOf(attributes); // tag 0x31: what is signed (RFC 5652 §5.4)
  const signature = await input.signer.signer.sign(signedAttributes, { hash: 'SHA-256' });

  const signer = certificateIdentity(input.signer.certificateDer);
  const sha256 = tlv(DER_TAG.SEQUENCE, derOid(OID_SHA256), DER_NULL);
  const signerInfo = tlv(
    DER_TAG.SEQUENCE,
    derSmallInteger(1),
    tlv(DER_TAG.SEQUENCE, signer.issuerAndSerial),
    sha256,
    Buffer.concat([Buffer.from([CONTEXT_0]), signedAttributes.subarray(1)]), // signedAttrs [0] IMPLICIT
    tlv(DER_TAG.SEQUENCE, derOid(OID_RSA_ENCRYPTION), DER_NULL),
    tlv(DER_TAG.OCTET_STRING, signature),
  );
  const signedData = tlv(
    DER_TAG.SEQUENCE,
    derSmallInteger(1),
    tlv(SET_TAG, sha256),
    tlv(DER_TAG.SEQUENCE, derOid(OID_DATA), tlv(CONTEXT_0, tlv(DER_TAG.OCTET_STRING, eContent))),
    tlv(CONTEXT_0, input.signer.certificateDer, ...input.signer.chainDer),
    tlv(SET_TAG, signerInfo),
  );
  return tlv(DER_TAG.SEQUENCE, derOid(OID_SIGNED_DATA), tlv(CONTEXT_0, signedData));
}
