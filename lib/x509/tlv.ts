/**
 * Byte positions in strict DER. forge's nodes do not remember where they came from, but signatures
 * cover exact bytes (TBSCertificate, CertificationRequestInfo, TBSCertList, an OCSP request's CertID)
 * and the API wants exact slices (issuer, SPKI). These helpers walk strict DER (X.690 §10: definite,
 * minimal lengths; low tag numbers) over a Buffer without copying and without recursion, so hostile
 * input cannot make them deep.
 */
import { parseError } from './errors';

/** One DER TLV inside a buffer: `buf.subarray(start, end)` is the whole value, `contentStart..end` its content. */
export interface Tlv {
  /** The identifier octet (class | constructed | tag number). */
  tag: number;
  start: number;
  contentStart: number;
  end: number;
}

/** Read the TLV at `offset`, which must end at or before `limit`. */
export function readTlv(buf: Uint8Array, offset: number, limit: number, what = 'DER value'): Tlv {
  if (offset + 2 > limit) throw parseError(`${what}: truncated`);
  const tag = buf[offset];
  if ((tag & 0x1f) === 0x1f) throw parseError(`${what}: high tag numbers are not supported`);
  let length = buf[offset + 1];
  let contentStart = offset + 2;
  if (length & 0x80) {
    const n = length & 0x7f;
    if (n === 0) throw parseError(`${what}: indefinite length (BER) is not DER`);
    if (n > 4) throw parseError(`${what}: length too large`);
    if (contentStart + n > limit) throw parseError(`${what}: truncated`);
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + buf[contentStart + i];
    contentStart += n;
    if (buf[offset + 2] === 0 || length < 0x80) throw parseError(`${what}: non-minimal length encoding`);
  }
  const end = contentStart + length;
  if (end > limit) throw parseError(`${what}: truncated`);
  return { tag, start: offset, contentStart, end };
}

/** The TLVs inside a constructed TLV's content. */
export function readTlvChildren(buf: Uint8Array, parent: Tlv, what = 'DER value'): Tlv[] {
  if (!(parent.tag & 0x20)) throw parseError(`${what}: expected a constructed value`);
  const out: Tlv[] = [];
  let pos = parent.contentStart;
  while (pos < parent.end) {
    const child = readTlv(buf, pos, parent.end, what);
    out.push(child);
    pos = child.end;
  }
  return out;
}

/**
 * The envelope shared by every signed structure (Certificate, CertificationRequest, CRL):
 * `SEQUENCE { toBeSigned SEQUENCE, signatureAlgorithm, signature }` filling the whole buffer.
 * Returns the three parts' positions; `what` names the structure in errors.
 */
export function readSignedEnvelope(der: Buffer, what: string): [Tlv, Tlv, Tlv] {
  const top = readTlv(der, 0, der.length, what);
  if (top.tag !== 0x30) throw parseError(`${what}: not a SEQUENCE`);
  if (top.end !== der.length) throw parseError(`${what}: trailing bytes after the ${what}`);
  const parts = readTlvChildren(der, top, what);
  if (parts.length !== 3 || parts[0].tag !== 0x30) throw parseError(`${what}: malformed signed structure`);
  return parts as [Tlv, Tlv, Tlv];
}

/** Identifier octets of the universal types the walkers check (X.690 §8.1.2). */
export const DER_TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  SEQUENCE: 0x30,
} as const;

/** `t` when it has identifier octet `tag`, else a parse error naming `what`. */
export function expectTag(t: Tlv | undefined, tag: number, what: string): Tlv {
  if (!t || t.tag !== tag) throw parseError(`${what}: unexpected structure`);
  return t;
}
