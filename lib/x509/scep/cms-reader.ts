/**
 * Reading the pieces of CMS (RFC 5652) that SCEP messages are made of, with the strict-DER TLV walker:
 * ContentInfo, AlgorithmIdentifier, OCTET STRINGs that BER encoders split into chunks, small INTEGERs.
 * Every failure is an X509Error (parse).
 */
import { contentToOid } from '../oid-der';
import { parseError } from '../errors';
import { DER_TAG, type Tlv, expectTag, readTlv, readTlvChildren } from '../tlv';

const CONSTRUCTED = 0x20;
const CONTEXT_0_CONSTRUCTED = 0xa0;

/** `t`'s bytes, tag and length included. */
export function tlvBytes(buf: Buffer, t: Tlv): Buffer {
  return buf.subarray(t.start, t.end);
}

/** `t`'s content octets. */
export function contentOf(buf: Buffer, t: Tlv): Buffer {
  return buf.subarray(t.contentStart, t.end);
}

/** Dotted text of the OBJECT IDENTIFIER `t`. */
export function readOidTlv(buf: Buffer, t: Tlv | undefined, what: string): string {
  const oid = expectTag(t, DER_TAG.OID, what);
  return contentToOid(contentOf(buf, oid), what);
}

/** An INTEGER of one content octet, 0..127 (CMS versions). */
export function readSmallInteger(buf: Buffer, t: Tlv | undefined, what: string): number {
  const int = expectTag(t, DER_TAG.INTEGER, what);
  if (int.end - int.contentStart !== 1 || buf[int.contentStart] > 0x7f) throw parseError(`${what}: unexpected value`);
  return buf[int.contentStart];
}

/**
 * The value of an OCTET STRING (or of an IMPLICIT one, whose primitive identifier is `primitiveTag`):
 * primitive, or constructed from primitive OCTET STRING chunks (X.690 §8.7.3) as some encoders write
 * CMS content (RFC 5652 §5.2, §6.1 allow BER), the chunks concatenated.
 */
export function readOctetString(buf: Buffer, t: Tlv | undefined, what: string, primitiveTag: number = DER_TAG.OCTET_STRING): Buffer {
  if (t && t.tag === primitiveTag) return contentOf(buf, t);
  if (!t || t.tag !== (primitiveTag | CONSTRUCTED)) throw parseError(`${what}: unexpected structure`);
  const chunks = readTlvChildren(buf, t, what).map((chunk) => contentOf(buf, expectTag(chunk, DER_TAG.OCTET_STRING, what)));
  return Buffer.concat(chunks);
}

export interface AlgorithmIdentifierTlv {
  oid: string;
  /** The parameters' TLV, when present. */
  parameters?: Tlv;
}

/** `AlgorithmIdentifier ::= SEQUENCE { algorithm OID, parameters ANY OPTIONAL }` (RFC 5280 §4.1.1.2). */
export function readAlgorithmIdentifier(buf: Buffer, t: Tlv | undefined, what: string): AlgorithmIdentifierTlv {
  const parts = readTlvChildren(buf, expectTag(t, DER_TAG.SEQUENCE, what), what);
  if (parts.length < 1 || parts.length > 2) throw parseError(`${what}: malformed AlgorithmIdentifier`);
  const oid = readOidTlv(buf, parts[0], what);
  return parts.length === 2 ? { oid, parameters: parts[1] } : { oid };
}

/** Parameters absent or NULL: how RSA and SHA algorithm identifiers are written (RFC 3370 §2, §3.2, §4.2.1). */
export function hasNoParameters(alg: AlgorithmIdentifierTlv): boolean {
  const p = alg.parameters;
  return p === undefined || (p.tag === DER_TAG.NULL && p.end === p.contentStart);
}

/**
 * `ContentInfo ::= SEQUENCE { contentType OID, content [0] EXPLICIT ANY }` (RFC 5652 §3) filling all
 * of `der`, of type `expectedType`; returns the content's TLV.
 */
export function readContentInfo(der: Buffer, expectedType: string, what: string): Tlv {
  const top = expectTag(readTlv(der, 0, der.length, what), DER_TAG.SEQUENCE, what);
  if (top.end !== der.length) throw parseError(`${what}: trailing bytes`);
  const parts = readTlvChildren(der, top, what);
  if (parts.length !== 2) throw parseError(`${what}: malformed ContentInfo`);
  const type = readOidTlv(der, parts[0], what);
  if (type !== expectedType) throw parseError(`${what}: content type ${type}, expected ${expectedType}`);
  const wrapper = expectTag(parts[1], CONTEXT_0_CONSTRUCTED, what);
  const inner = readTlvChildren(der, wrapper, what);
  if (inner.length !== 1) throw parseError(`${what}: malformed ContentInfo content`);
  return inner[0];
}
