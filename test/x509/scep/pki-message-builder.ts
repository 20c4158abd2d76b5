/**
 * SCEP requests (RFC 8894 §3) written as clients write them, with every knob a test needs to break
 * one thing at a time: the signed layer is built here (openssl cannot add SCEP's signed attributes),
 * signed by the client's key with node:crypto; the tests check with `openssl cms -verify` that what it
 * builds is valid CMS, so that this writer is not just the reader's mirror image.
 */
import * as crypto from 'crypto';
import { DER_NULL, derOid, derSetOf, derSmallInteger, tlv } from '../../../lib/x509/der-writer';
import { certificateIdentity } from '../../../lib/x509/scep/certificate-identity';

export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  envelopedData: '1.2.840.113549.1.7.3',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  messageType: '2.16.840.1.113733.1.9.2',
  senderNonce: '2.16.840.1.113733.1.9.5',
  transactionId: '2.16.840.1.113733.1.9.7',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha1WithRSA: '1.2.840.113549.1.1.5',
  sha256WithRSA: '1.2.840.113549.1.1.11',
  rsassaPss: '1.2.840.113549.1.1.10',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  md5: '1.2.840.113549.2.5',
  sha224: '2.16.840.1.101.3.4.2.4',
  sha1: '1.3.14.3.2.26',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha512: '2.16.840.1.101.3.4.2.3',
} as const;

export type Digest = 'sha1' | 'sha256' | 'sha384' | 'sha512';

export interface RequestSpec {
  /** The eContent octets (the EnvelopedData DER). */
  content: Buffer;
  signerCertDer: Buffer;
  signerKeyPem: string;
  /** messageType text; default '19' (PKCSReq). */
  messageType?: string;
  transactionId?: string;
  senderNonce?: Buffer;
  digest?: Digest;
  /** A digestAlgorithm OID other than `digest`'s (the signature is still made with `digest`). */
  digestOid?: string;
  /** SignerInfo signatureAlgorithm; default rsaEncryption with NULL. */
  signatureOid?: string;
  /** Sign with this key instead (the signature then does not verify with the certificate's). */
  signWithKeyPem?: string;
  /** The messageDigest attribute's value instead of the content's digest. */
  messageDigest?: Buffer;
  /** The contentType attribute's OID; default id-data. */
  contentTypeAttribute?: string;
  /** Signed attributes left out, by OID. */
  omit?: string[];
  /** Further signed attributes (whole Attribute TLVs). */
  extraAttributes?: Buffer[];
  /** Keep the attributes in the order written instead of DER order (BER encoders do). */
  unsorted?: boolean;
  /** `certificates` [0]; default the signer's alone. */
  certificates?: Buffer[];
  /** The SignerInfo this many times; default 1. */
  signerInfoCount?: number;
  /** eContent as a constructed OCTET STRING of chunks this long (BER, as some encoders write it). */
  contentChunk?: number;
  /** A raw signature transform (e.g. flip a bit). */
  tamperSignature?: (signature: Buffer) => Buffer;
}

export const printable = (text: string): Buffer => tlv(0x13, Buffer.from(text, 'latin1'));
export const attribute = (oid: string, value: Buffer): Buffer => tlv(0x30, derOid(oid), tlv(0x31, value));
const algorithm = (oid: string): Buffer => tlv(0x30, derOid(oid), DER_NULL);

/** The pkiMessage DER of `spec`. */
export function buildRequest(spec: RequestSpec): Buffer {
  const digest = spec.digest ?? 'sha256';
  const omit = new Set(spec.omit ?? []);
  const standard: [string, Buffer][] = [
    [OID.contentType, derOid(spec.contentTypeAttribute ?? OID.data)],
    [OID.messageDigest, tlv(0x04, spec.messageDigest ?? crypto.createHash(digest).update(spec.content).digest())],
    [OID.messageType, printable(spec.messageType ?? '19')],
    [OID.transactionId, printable(spec.transactionId ?? crypto.randomBytes(20).toString('hex').toUpperCase())],
    [OID.senderNonce, tlv(0x04, spec.senderNonce ?? crypto.randomBytes(16))],
  ];
  const attributes = standard.filter(([oid]) => !omit.has(oid)).map(([oid, value]) => attribute(oid, value));
  attributes.push(...(spec.extraAttributes ?? []));
  const signedAttributes = spec.unsorted ? tlv(0x31, ...attributes) : derSetOf(attributes);

  let signature: Buffer = crypto.sign(digest, signedAttributes, spec.signWithKeyPem ?? spec.signerKeyPem);
  if (spec.tamperSignature) signature = spec.tamperSignature(signature);
  const digestAlgorithm = algorithm(spec.digestOid ?? OID[digest]);
  const signerInfo = tlv(
    0x30,
    derSmallInteger(1),
    tlv(0x30, certificateIdentity(spec.signerCertDer).issuerAndSerial),
    digestAlgorithm,
    Buffer.concat([Buffer.from([0xa0]), signedAttributes.subarray(1)]),
    algorithm(spec.signatureOid ?? OID.rsaEncryption),
    tlv(0x04, signature),
  );
  const eContent =
    spec.contentChunk === undefined
      ? tlv(0x04, spec.content)
      : tlv(0x24, ...chunks(spec.content, spec.contentChunk).map((chunk) => tlv(0x04, chunk)));
  const signedData = tlv(
    0x30,
    derSmallInteger(1),
    tlv(0x31, digestAlgorithm),
    tlv(0x30, derOid(OID.data), tlv(0xa0, eContent)),
    tlv(0xa0, ...(spec.certificates ?? [spec.signerCertDer])),
    tlv(0x31, ...Array<Buffer>(spec.signerInfoCount ?? 1).fill(signerInfo)),
  );
  return tlv(0x30, derOid(OID.signedData), tlv(0xa0, signedData));
}

function chunks(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}
