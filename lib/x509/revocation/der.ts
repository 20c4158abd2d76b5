/**
 * A small DER writer for the revocation structures (CRLs, OCSP responses; also the PKCS#11 key
 * backend's DigestInfo and ECDSA signatures): values are Buffers, a constructed value is its parts'
 * bytes concatenated under one header. Everything is encoded once;
 * parts that arrive as DER (a CA's subject Name, a CertID echoed from a request) are copied as is.
 * DER rules of X.690 §10 apply: definite minimal lengths, minimal INTEGERs, GeneralizedTime in UTC
 * with no fraction.
 */
import { asn1TimeText } from '../datetime';
import { tlv } from '../der-writer';

/** One TLV (`tag` is the whole identifier octet): the one DER writer's, X.690 §10.1 lengths. */
export { tlv };

export const seq = (...parts: Buffer[]): Buffer => tlv(0x30, ...parts);
/** A SEQUENCE OF any number of parts (a CRL's 100,000 entries do not fit in an argument list). */
export const seqOf = (parts: readonly Buffer[]): Buffer => tlv(0x30, Buffer.concat(parts));
export const octets = (bytes: Buffer): Buffer => tlv(0x04, bytes);
export const nullDer = (): Buffer => Buffer.from([0x05, 0x00]);
export const bool = (value: boolean): Buffer => tlv(0x01, Buffer.from([value ? 0xff : 0x00]));
/** `[n] EXPLICIT` around a complete TLV. */
export const explicit = (n: number, inner: Buffer): Buffer => tlv(0xa0 | n, inner);
export const bitString = (bytes: Buffer): Buffer => tlv(0x03, Buffer.from([0]), bytes);

/** Two's-complement, minimal content octets of a non-negative integer. */
export function unsignedContent(value: bigint): Buffer {
  if (value < 0n) throw new RangeError('negative integers are not written here');
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const bytes = Buffer.from(hex, 'hex');
  return bytes[0] & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes;
}

export const integer = (value: bigint | number): Buffer => tlv(0x02, unsignedContent(BigInt(value)));
export const enumerated = (value: number): Buffer => tlv(0x0a, unsignedContent(BigInt(value)));

/** OBJECT IDENTIFIER from its dotted form (X.690 §8.19). */
export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map((a) => BigInt(a));
  if (arcs.length < 2) throw new RangeError(`not an OID: ${dotted}`);
  const out: number[] = [];
  const push = (v: bigint) => {
    const chunk: number[] = [Number(v & 0x7fn)];
    for (let rest = v >> 7n; rest > 0n; rest >>= 7n) chunk.unshift(Number(rest & 0x7fn) | 0x80);
    out.push(...chunk);
  };
  push(arcs[0] * 40n + arcs[1]);
  for (const arc of arcs.slice(2)) push(arc);
  return tlv(0x06, Buffer.from(out));
}

/** GeneralizedTime `YYYYMMDDHHMMSSZ` (RFC 5280 §4.1.2.5.2: UTC, seconds, no fraction). */
export function generalizedTime(d: Date): Buffer {
  return tlv(0x18, Buffer.from(asn1TimeText(d, 'generalized'), 'ascii'));
}

/** RFC 5280 §5.1.2.4: UTCTime through 2049, GeneralizedTime from 2050 on. */
export function time(d: Date): Buffer {
  const year = d.getUTCFullYear();
  if (year < 1950 || year > 2049) return generalizedTime(d);
  return tlv(0x17, Buffer.from(asn1TimeText(d, 'utc'), 'ascii'));
}

/** Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING }. */
export function extension(extnId: string, critical: boolean, valueDer: Buffer): Buffer {
  return critical ? seq(oid(extnId), bool(true), octets(valueDer)) : seq(oid(extnId), octets(valueDer));
}
