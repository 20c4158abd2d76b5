/**
 * A minimal DER writer (X.690 §10): tag, minimal definite length, content. Enough for the CMS
 * structures the engine emits (PKCS#7 certs-only bags, SCEP pkiMessages) without building a node tree
 * and re-encoding bytes that must go out exactly as they came in (certificates, names, serials).
 */
import { oidToContent } from './oid-der';

/** One DER TLV: the identifier octet, the minimal definite length (X.690 §10.1), the content. */
export function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  let length: Buffer;
  if (n < 0x80) length = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
    length = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

/** An OBJECT IDENTIFIER TLV from dotted text. */
export function derOid(dotted: string): Buffer {
  return tlv(0x06, oidToContent(dotted));
}

/** A small non-negative INTEGER TLV (versions, enumerations). */
export function derSmallInteger(value: number): Buffer {
  if (!Number.isInteger(value) || value < 0 || value > 0x7f) throw new RangeError(`derSmallInteger: ${value} is out of range`);
  return tlv(0x02, Buffer.from([value]));
}

/** The NULL TLV. */
export const DER_NULL = Buffer.from([0x05, 0x00]);

/**
 * A DER SET OF: the element encodings sorted as octet strings (X.690 §11.6). Buffer.compare orders a
 * proper prefix first, which is what padding the shorter one with trailing zero octets gives.
 */
export function derSetOf(elements: readonly Buffer[]): Buffer {
  return tlv(0x31, ...[...elements].sort(Buffer.compare));
}
