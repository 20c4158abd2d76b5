/**
 * The pkcsPKIEnvelope of SCEP (RFC 8894 §3.2.2): a CMS EnvelopedData (RFC 5652 §6) whose content key
 * travels RSA-encrypted with PKCS#1 v1.5 (RFC 8017 §7.2) to one recipient named by issuer and serial
 * number. `openEnvelope` reads a request's (the recipient is our RA); `sealEnvelope` writes a
 * CertRep's (the recipient is the requester's signer certificate).
 *
 * Opening never tells a wrong RSA padding apart from a wrong key or a bad content: the key block is
 * unpadded without branches and replaced by a random key on any failure (rsa-unpad.ts), and every
 * failure from there on is the same badMessageCheck with the same text (RFC 3218 §2.3.2).
 */
import { constants, publicEncrypt, randomBytes } from 'crypto';
import { parseError } from '../errors';
import { DER_NULL, derOid, derSmallInteger, tlv } from '../der-writer';
import { DER_TAG, expectTag, readTlvChildren, type Tlv } from '../tlv';
import { certificateIdentity, rsaModulusLength, rsaPublicKey } from './certificate-identity';
import {
  contentOf,
  hasNoParameters,
  readAlgorithmIdentifier,
  readContentInfo,
  readOctetString,
  readOidTlv,
  readSmallInteger,
} from './cms-reader';
import { CIPHERS, cipherByOid, decryptContent, encryptContent, randomContentKey, type ScepCipher } from './content-ciphers';
import { ScepMessageError } from './message-error';
import { OID_DATA, OID_ENVELOPED_DATA, OID_RSA_ENCRYPTION } from './oids';
import { unpadPkcs1v15KeyTransport } from './rsa-unpad';

export type { ScepCipher } from './content-ciphers';

/** The raw RSA private operation (no padding) on one block of the modulus' length, as the key's holder offers it. */
export type RawRsaDecrypt = (block: Buffer) => Promise<Buffer>;

export interface OpenedEnvelope {
  content: Buffer;
  cipher: ScepCipher;
}

const WHAT = 'SCEP pkcsPKIEnvelope';
const SET_TAG = 0x31;
const CONTEXT_0_PRIMITIVE = 0x80;
/** One text for every failure to decrypt, whatever its cause. */
const UNDECRYPTABLE = `${WHAT}: the content cannot be decrypted`;

interface EnvelopeTlvs {
  recipients: Tlv[];
  cipherOid: string;
  iv: Buffer;
  encrypted: Buffer;
}

/**
 * `EnvelopedData ::= SEQUENCE { version, originatorInfo [0] OPTIONAL, recipientInfos SET,
 * encryptedContentInfo SEQUENCE { contentType, contentEncryptionAlgorithm, encryptedContent [0]
 * IMPLICIT OPTIONAL }, unprotectedAttrs [1] OPTIONAL }` (RFC 5652 §6.1).
 */
function readEnvelope(der: Buffer): EnvelopeTlvs {
  const fields = readTlvChildren(
    der,
    expectTag(readContentInfo(der, OID_ENVELOPED_DATA, WHAT), DER_TAG.SEQUENCE, 'EnvelopedData'),
    'EnvelopedData',
  );
  let i = 1; // after the version, which the recipients' form decides (RFC 5652 §6.1)
  expectTag(fields[0], DER_TAG.INTEGER, 'EnvelopedData version');
  if (fields[i]?.tag === 0xa0) i++; // originatorInfo
  const recipients = readTlvChildren(der, expectTag(fields[i++], SET_TAG, 'recipientInfos'), 'recipientInfos');
  const info = readTlvChildren(der, expectTag(fields[i], DER_TAG.SEQUENCE, 'encryptedContentInfo'), 'encryptedContentInfo');
  if (info.length !== 3) throw parseError(`${WHAT}: no encrypted content`);
  const type = readOidTlv(der, info[0], 'encryptedContentInfo contentType');
  if (type !== OID_DATA) throw parseError(`${WHAT}: content type ${type}, expected id-data`);
  const algorithm = readAlgorithmIdentifier(der, info[1], 'contentEncryptionAlgorithm');
  // An algorithm we do not know is badAlg whatever its parameters (RC2's are a SEQUENCE, RFC 3370 §5.2).
  if (!cipherByOid(algorithm.oid)) throw new ScepMessageError('badAlg', `${WHAT}: unsupported content encryption ${algorithm.oid}`);
  if (!algorithm.parameters || algorithm.parameters.tag !== DER_TAG.OCTET_STRING) throw parseError(`${WHAT}: the cipher has no IV`);
  const encrypted = readOctetString(der, info[2], 'encryptedContent', CONTEXT_0_PRIMITIVE);
  return { recipients, cipherOid: algorithm.oid, iv: contentOf(der, algorithm.parameters), encrypted };
}

/**
 * `KeyTransRecipientInfo ::= SEQUENCE { version 0, rid IssuerAndSerialNumber, keyEncryptionAlgorithm,
 * encryptedKey OCTET STRING }` (RFC 5652 §6.2.1) addressed to `wanted` (issuer ‖ serial), or null.
 */
function encryptedKeyFor(der: Buffer, recipients: Tlv[], wanted: Buffer): Buffer | null {
  for (const recipient of recipients) {
    if (recipient.tag !== DER_TAG.SEQUENCE) continue; // another RecipientInfo choice: not ours
    const parts = readTlvChildren(der, recipient, 'RecipientInfo');
    if (parts.length !== 4 || parts[1].tag !== DER_TAG.SEQUENCE) continue; // a subjectKeyIdentifier rid: not ours
    if (!contentOf(der, parts[1]).equals(wanted)) continue;
    if (readSmallInteger(der, parts[0], 'RecipientInfo version') !== 0) throw parseError('RecipientInfo: version must be 0');
    const algorithm = readAlgorithmIdentifier(der, parts[2], 'keyEncryptionAlgorithm');
    if (algorithm.oid !== OID_RSA_ENCRYPTION || !hasNoParameters(algorithm)) {
      throw new ScepMessageError('badAlg', `${WHAT}: key transport ${algorithm.oid} is not RSA PKCS#1 v1.5`);
    }
    return contentOf(der, expectTag(parts[3], DER_TAG.OCTET_STRING, 'encryptedKey'));
  }
  return null;
}

/** Decrypt the envelope `der` addressed to `recipient` (our RA certificate and its key's raw RSA operation). */
export async function openEnvelope(der: Buffer, recipient: { certificateDer: Buffer; decryptRaw: RawRsaDecrypt }): Promise<OpenedEnvelope> {
  const identity = certificateIdentity(recipient.certificateDer);
  const k = rsaModulusLength(rsaPublicKey(identity.spki, 'recipient certificate'));
  let envelope: EnvelopeTlvs;
  let encryptedKey: Buffer | null;
  try {
    envelope = readEnvelope(der);
    encryptedKey = encryptedKeyFor(der, envelope.recipients, identity.issuerAndSerial);
  } catch (e) {
    if (e instanceof ScepMessageError) throw e;
    throw new ScepMessageError('badMessageCheck', `${WHAT}: ${(e as Error).message}`);
  }
  if (!encryptedKey) throw new ScepMessageError('badMessageCheck', `${WHAT}: not encrypted to this server's RA certificate`);
  const cipher = cipherByOid(envelope.cipherOid);
  if (!cipher) throw new ScepMessageError('badAlg', `${WHAT}: unsupported content encryption ${envelope.cipherOid}`);
  const { keyLength, blockSize } = CIPHERS[cipher];
  if (envelope.iv.length !== blockSize) throw new ScepMessageError('badMessageCheck', UNDECRYPTABLE);

  // The random key is drawn before the RSA operation, whatever its outcome, so that the work done
  // does not depend on it; a failed operation (a block of the wrong length) takes the same path.
  const randomKey = randomContentKey(cipher);
  let block: Buffer = Buffer.alloc(0);
  try {
    block = await recipient.decryptRaw(encryptedKey);
  } catch {
    // refused (e.g. a block of the wrong length): the empty block takes the random key below
  }
  // I2OSP (RFC 8017 §4.1) gives k octets. A token that drops leading zero octets (EM[0] is always
  // zero) would otherwise never unpad; put them back. The length is the token's habit, not a secret.
  if (block.length > 0 && block.length < k) block = Buffer.concat([Buffer.alloc(k - block.length), block]);
  const key = unpadPkcs1v15KeyTransport(block, keyLength, randomKey);
  const content = decryptContent(cipher, key, envelope.iv, envelope.encrypted);
  key.fill(0);
  if (!content) throw new ScepMessageError('badMessageCheck', UNDECRYPTABLE);
  return { content, cipher };
}

/**
 * `content` in an EnvelopedData v0 to `recipientCertificateDer`'s RSA key: one KeyTransRecipientInfo
 * v0 named by issuer and serial number, rsaEncryption with NULL parameters (strongSwan 5.9 accepts
 * nothing else), `cipher` with a fresh key and IV, the encrypted content as a primitive [0].
 */
export function sealEnvelope(content: Buffer, recipientCertificateDer: Buffer, cipher: ScepCipher): Buffer {
  const recipient = certificateIdentity(recipientCertificateDer);
  const key = randomContentKey(cipher);
  const iv = randomBytes(CIPHERS[cipher].blockSize);
  const encryptedKey = publicEncrypt(
    { key: rsaPublicKey(recipient.spki, 'recipient certificate'), padding: constants.RSA_PKCS1_PADDING },
    key,
  );
  const encrypted = encryptContent(cipher, key, iv, content);
  key.fill(0);
  const recipientInfo = tlv(
    DER_TAG.SEQUENCE,
    derSmallInteger(0),
    tlv(DER_TAG.SEQUENCE, recipient.issuerAndSerial),
    tlv(DER_TAG.SEQUENCE, derOid(OID_RSA_ENCRYPTION), DER_NULL),
    tlv(DER_TAG.OCTET_STRING, encryptedKey),
  );
  const envelopedData = tlv(
    DER_TAG.SEQUENCE,
    derSmallInteger(0),
    tlv(SET_TAG, recipientInfo),
    tlv(
      DER_TAG.SEQUENCE,
      derOid(OID_DATA),
      tlv(DER_TAG.SEQUENCE, derOid(CIPHERS[cipher].oid), tlv(DER_TAG.OCTET_STRING, iv)),
      tlv(CONTEXT_0_PRIMITIVE, encrypted),
    ),
  );
  return tlv(DER_TAG.SEQUENCE, derOid(OID_ENVELOPED_DATA), tlv(0xa0, envelopedData));
}
