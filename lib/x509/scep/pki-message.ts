/**
 * Reading a SCEP request, the pkiMessage of RFC 8894 §3: a CMS SignedData (RFC 5652 §5) with one
 * signer, SCEP's signed attributes (RFC 8894 §3.2.1), and as content the DER of an EnvelopedData that
 * only the CA/RA can open (`enveloped-data.ts`).
 *
 * The signature is verified with the public key of the signer's certificate from the message itself.
 * That certificate is not chain-validated here: for PKCSReq it is usually self-signed (RFC 8894
 * §2.3), and deciding whom to trust (RenewalReq, GetCert) is the caller's job.
 */
import { type KeyObject, constants, createHash, verify } from 'crypto';
import { X509Error, parseError } from '../errors';
import { DER_TAG, type Tlv, expectTag, readTlvChildren } from '../tlv';
import { contentOf, hasNoParameters, readAlgorithmIdentifier, readContentInfo, readOctetString, readOidTlv, tlvBytes } from './cms-reader';
import { certificateIdentity, rsaPublicKey } from './certificate-identity';
import { ScepMessageError, type ScepMessageContext, withScepContext } from './message-error';
import {
  OID_CONTENT_TYPE,
  OID_DATA,
  OID_MESSAGE_DIGEST,
  OID_RSA_ENCRYPTION,
  OID_SCEP_MESSAGE_TYPE,
  OID_SCEP_SENDER_NONCE,
  OID_SCEP_TRANSACTION_ID,
  OID_SHA1,
  OID_SHA1_WITH_RSA,
  OID_SHA224_WITH_RSA,
  OID_SHA256,
  OID_SHA256_WITH_RSA,
  OID_SHA384,
  OID_SHA384_WITH_RSA,
  OID_SHA512,
  OID_SHA512_WITH_RSA,
  OID_SIGNED_DATA,
} from './oids';

export { ScepMessageError, type ScepMessageFailInfo } from './message-error';

export type ScepDigest = 'sha1' | 'sha256' | 'sha384' | 'sha512';

/** The request messageTypes of RFC 8894 §3.2.1.2: RenewalReq, PKCSReq, CertPoll, GetCert, GetCRL. */
export type ScepMessageType = 17 | 19 | 20 | 21 | 22;

export interface PkiMessage {
  /** As sent; the caller rejects types it does not serve. */
  messageType: number;
  /** The PrintableString value, to be echoed byte for byte in the reply (RFC 8894 §3.2.1.1). */
  transactionId: string;
  senderNonce: Buffer;
  /** The SignerInfo's digestAlgorithm. */
  digest: ScepDigest;
  /** DER of the certificate in `certificates` whose issuer and serial number are the SignerInfo's sid. */
  signerCertificate: Buffer;
  /** The eContent octets: DER of the EnvelopedData ContentInfo (RFC 8894 §3.2.2). */
  envelope: Buffer;
}

const DIGESTS: Readonly<Record<string, ScepDigest>> = {
  [OID_SHA1]: 'sha1',
  [OID_SHA256]: 'sha256',
  [OID_SHA384]: 'sha384',
  [OID_SHA512]: 'sha512',
};

/**
 * Signature algorithms read as "RSASSA-PKCS1-v1_5 with the SignerInfo's digestAlgorithm": CMS names
 * rsaEncryption (RFC 3370 §3.2), some clients the combined OIDs (RFC 4055 §5).
 */
const RSA_PKCS1_SIGNATURES: ReadonlySet<string> = new Set([
  OID_RSA_ENCRYPTION,
  OID_SHA1_WITH_RSA,
  OID_SHA224_WITH_RSA,
  OID_SHA256_WITH_RSA,
  OID_SHA384_WITH_RSA,
  OID_SHA512_WITH_RSA,
]);

const PRINTABLE_STRING = 0x13;
const CONTEXT_0_CONSTRUCTED = 0xa0;
const CONTEXT_1_CONSTRUCTED = 0xa1;
const SET_TAG = 0x31;
const WHAT = 'SCEP pkiMessage';

/**
 * Parse a pkiMessage and verify it: the messageDigest attribute against the content, and the RSA
 * PKCS#1 v1.5 signature over the signed attributes re-tagged as a SET (RFC 5652 §5.4) with the
 * signer certificate's key. Any failure is a ScepMessageError with what could be read before it.
 */
export function readPkiMessage(der: Buffer): PkiMessage {
  const context: ScepMessageContext = {};
  return withScepContext('badRequest', context, () => readAndVerify(der, context));
}

function readAndVerify(der: Buffer, context: ScepMessageContext): PkiMessage {
  const signedData = readSignedData(der);
  const signerInfo = readSignerInfo(der, signedData.signerInfo);
  const attributes = readSignedAttributes(der, signerInfo.signedAttrs);

  const transactionId = readTransactionId(der, attributes);
  context.transactionId = transactionId;
  const senderNonce = readOctetString(der, singleValue(attributes, OID_SCEP_SENDER_NONCE, 'senderNonce'), 'senderNonce');
  if (senderNonce.length === 0) throw parseError('senderNonce: empty');
  context.senderNonce = Buffer.from(senderNonce);
  const messageType = readMessageType(der, attributes);

  const signerCertificate = findSignerCertificate(der, signedData.certificates, signerInfo.sid);
  context.signerCertificate = signerCertificate;

  const digest = DIGESTS[signerInfo.digestAlgorithm.oid];
  if (!digest || !hasNoParameters(signerInfo.digestAlgorithm)) {
    throw new ScepMessageError('badAlg', `${WHAT}: unsupported digest algorithm ${signerInfo.digestAlgorithm.oid}`);
  }
  if (!RSA_PKCS1_SIGNATURES.has(signerInfo.signatureAlgorithm.oid) || !hasNoParameters(signerInfo.signatureAlgorithm)) {
    throw new ScepMessageError('badAlg', `${WHAT}: unsupported signature algorithm ${signerInfo.signatureAlgorithm.oid}`);
  }
  const publicKey = signerPublicKey(signerCertificate);

  // RFC 5652 §11.1: the contentType attribute must name the eContentType; §11.2 and §5.4: the
  // messageDigest attribute is the digest of the eContent's value octets.
  const contentType = readOidTlv(der, singleValue(attributes, OID_CONTENT_TYPE, 'contentType'), 'contentType');
  const messageDigest = readOctetString(der, singleValue(attributes, OID_MESSAGE_DIGEST, 'messageDigest'), 'messageDigest');
  if (contentType !== signedData.contentType) {
    throw new ScepMessageError('badMessageCheck', `${WHAT}: the contentType attribute does not match the content`);
  }
  if (!createHash(digest).update(signedData.content).digest().equals(messageDigest)) {
    throw new ScepMessageError('badMessageCheck', `${WHAT}: the messageDigest attribute does not match the content`);
  }
  const signedBytes = Buffer.concat([Buffer.from([SET_TAG]), der.subarray(signerInfo.signedAttrs.start + 1, signerInfo.signedAttrs.end)]);
  if (!verifies(digest, signedBytes, publicKey, signerInfo.signature)) {
    throw new ScepMessageError('badMessageCheck', `${WHAT}: the signature does not verify with the signer certificate's key`);
  }
  return {
    messageType,
    transactionId,
    senderNonce: Buffer.from(senderNonce),
    digest,
    signerCertificate,
    envelope: Buffer.from(signedData.content),
  };
}

/** The signer certificate's RSA key; another key type → badAlg, an unreadable one → badMessageCheck. */
function signerPublicKey(certificate: Buffer): KeyObject {
  try {
    return rsaPublicKey(certificateIdentity(certificate).spki, 'signer certificate');
  } catch (e) {
    if (e instanceof X509Error) throw new ScepMessageError(e.code === 'unsupported' ? 'badAlg' : 'badMessageCheck', e.message);
    throw e;
  }
}

function verifies(digest: ScepDigest, data: Buffer, key: KeyObject, signature: Buffer): boolean {
  try {
    return verify(digest, data, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
  } catch {
    return false; // e.g. a signature longer than the modulus: not a valid signature either
  }
}

interface SignedDataTlvs {
  contentType: string;
  content: Buffer;
  certificates?: Tlv;
  signerInfo: Tlv;
}

/**
 * `SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo, certificates [0]
 * IMPLICIT OPTIONAL, crls [1] IMPLICIT OPTIONAL, signerInfos SET }` (RFC 5652 §5.1), with exactly one
 * SignerInfo (RFC 8894 §3.2) and an eContent (the envelope).
 */
function readSignedData(der: Buffer): SignedDataTlvs {
  const fields = readTlvChildren(der, expectTag(readContentInfo(der, OID_SIGNED_DATA, WHAT), DER_TAG.SEQUENCE, 'SignedData'), 'SignedData');
  let i = 0;
  expectTag(fields[i++], DER_TAG.INTEGER, 'SignedData version');
  expectTag(fields[i++], SET_TAG, 'SignedData digestAlgorithms');
  const encap = readTlvChildren(der, expectTag(fields[i++], DER_TAG.SEQUENCE, 'encapContentInfo'), 'encapContentInfo');
  const certificates = fields[i]?.tag === CONTEXT_0_CONSTRUCTED ? fields[i++] : undefined;
  if (fields[i]?.tag === CONTEXT_1_CONSTRUCTED) i++;
  const signerInfos = readTlvChildren(der, expectTag(fields[i++], SET_TAG, 'SignedData signerInfos'), 'signerInfos');
  if (i !== fields.length) throw parseError('SignedData: unexpected fields');
  if (signerInfos.length !== 1) throw parseError(`${WHAT}: ${signerInfos.length} SignerInfos, exactly one expected`);

  if (encap.length !== 2) throw parseError(`${WHAT}: no content (the pkcsPKIEnvelope is missing)`);
  const contentType = readOidTlv(der, encap[0], 'eContentType');
  if (contentType !== OID_DATA) throw parseError(`${WHAT}: eContentType ${contentType}, expected id-data`);
  const explicit = readTlvChildren(der, expectTag(encap[1], CONTEXT_0_CONSTRUCTED, 'eContent'), 'eContent');
  if (explicit.length !== 1) throw parseError('eContent: malformed');
  const content = readOctetString(der, explicit[0], 'eContent');
  return { contentType, content, certificates, signerInfo: signerInfos[0] };
}

interface SignerInfoTlvs {
  sid: Tlv;
  digestAlgorithm: ReturnType<typeof readAlgorithmIdentifier>;
  signedAttrs: Tlv;
  signatureAlgorithm: ReturnType<typeof readAlgorithmIdentifier>;
  signature: Buffer;
}

/**
 * `SignerInfo ::= SEQUENCE { version, sid, digestAlgorithm, signedAttrs [0] IMPLICIT OPTIONAL,
 * signatureAlgorithm, signature OCTET STRING, unsignedAttrs [1] IMPLICIT OPTIONAL }` (RFC 5652 §5.3),
 * sid an IssuerAndSerialNumber (version 1: what RFC 8894 §3.2 clients send), signedAttrs present.
 */
function readSignerInfo(der: Buffer, t: Tlv): SignerInfoTlvs {
  const fields = readTlvChildren(der, expectTag(t, DER_TAG.SEQUENCE, 'SignerInfo'), 'SignerInfo');
  if (fields.length < 6 || fields.length > 7) throw parseError(`${WHAT}: malformed SignerInfo (signed attributes are required)`);
  expectTag(fields[0], DER_TAG.INTEGER, 'SignerInfo version');
  const sid = expectTag(fields[1], DER_TAG.SEQUENCE, 'SignerInfo sid (an IssuerAndSerialNumber)');
  const digestAlgorithm = readAlgorithmIdentifier(der, fields[2], 'SignerInfo digestAlgorithm');
  const signedAttrs = expectTag(fields[3], CONTEXT_0_CONSTRUCTED, 'SignerInfo signedAttrs');
  const signatureAlgorithm = readAlgorithmIdentifier(der, fields[4], 'SignerInfo signatureAlgorithm');
  const signature = contentOf(der, expectTag(fields[5], DER_TAG.OCTET_STRING, 'SignerInfo signature'));
  if (fields[6] && fields[6].tag !== CONTEXT_1_CONSTRUCTED) throw parseError('SignerInfo: unexpected fields');
  return { sid, digestAlgorithm, signedAttrs, signatureAlgorithm, signature };
}

/**
 * The signed attributes by type, each with its values. Unknown types are kept but never looked at
 * (RFC 8894 §3.2.1); a type twice is refused (RFC 5652 §5.3: the signer's attributes are one each).
 */
function readSignedAttributes(der: Buffer, signedAttrs: Tlv): Map<string, Tlv[]> {
  const out = new Map<string, Tlv[]>();
  for (const attribute of readTlvChildren(der, signedAttrs, 'signedAttrs')) {
    const parts = readTlvChildren(der, expectTag(attribute, DER_TAG.SEQUENCE, 'signed attribute'), 'signed attribute');
    if (parts.length !== 2) throw parseError('signed attribute: malformed');
    const type = readOidTlv(der, parts[0], 'signed attribute type');
    if (out.has(type)) throw parseError(`signed attribute ${type}: present twice`);
    out.set(type, readTlvChildren(der, expectTag(parts[1], SET_TAG, 'signed attribute values'), 'signed attribute values'));
  }
  return out;
}

/** The one value of a single-valued attribute that must be present. */
function singleValue(attributes: Map<string, Tlv[]>, type: string, name: string): Tlv {
  const values = attributes.get(type);
  if (!values) throw parseError(`${WHAT}: the ${name} attribute is missing`);
  if (values.length !== 1) throw parseError(`${WHAT}: the ${name} attribute must have exactly one value`);
  return values[0];
}

/** transactionID: a PrintableString (RFC 8894 §3.2.1.1), read as visible ASCII so that any such value echoes unchanged. */
function readTransactionId(der: Buffer, attributes: Map<string, Tlv[]>): string {
  const value = contentOf(
    der,
    expectTag(singleValue(attributes, OID_SCEP_TRANSACTION_ID, 'transactionID'), PRINTABLE_STRING, 'transactionID'),
  );
  if (value.length === 0 || value.some((b) => b < 0x20 || b > 0x7e)) throw parseError('transactionID: not a printable string');
  return value.toString('latin1');
}

/** messageType: a PrintableString holding a decimal number (RFC 8894 §3.2.1.2). */
function readMessageType(der: Buffer, attributes: Map<string, Tlv[]>): number {
  const value = contentOf(der, expectTag(singleValue(attributes, OID_SCEP_MESSAGE_TYPE, 'messageType'), PRINTABLE_STRING, 'messageType'));
  const text = value.toString('latin1');
  if (!/^\d{1,4}$/.test(text)) throw parseError('messageType: not a decimal number');
  return Number(text);
}

/**
 * The certificate in `certificates` whose issuer and serialNumber are byte for byte the sid's (RFC
 * 5652 §5.3, §10.2.4). Entries that are not X.509 certificates, or that do not parse, cannot match.
 */
function findSignerCertificate(der: Buffer, certificates: Tlv | undefined, sid: Tlv): Buffer {
  const wanted = contentOf(der, sid);
  for (const entry of certificates ? readTlvChildren(der, certificates, 'certificates') : []) {
    if (entry.tag !== DER_TAG.SEQUENCE) continue;
    const candidate = tlvBytes(der, entry);
    let matches: boolean;
    try {
      matches = certificateIdentity(candidate).issuerAndSerial.equals(wanted);
    } catch {
      continue;
    }
    if (matches) return Buffer.from(candidate);
  }
  throw new ScepMessageError('badMessageCheck', `${WHAT}: the signer's certificate is not in the message`);
}
