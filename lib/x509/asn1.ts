/**
 * A thin, typed layer over node-forge's ASN.1/DER codec.
 *
 * forge represents byte strings as JavaScript "binary strings" (one char per byte). This module is the
 * only place that knows that: everything above it deals in `Buffer`s, `bigint`s, dotted OIDs and JS
 * strings. Parsing is strict (no trailing bytes, no BER) and never decodes BIT STRING contents, so that
 * what we read re-encodes to exactly the bytes we were given.
 */
import * as forge from 'node-forge';
import { asn1TimeText } from './datetime';
import { parseError } from './errors';
import { contentToOid, oidToContent } from './oid-der';

/**
 * One ASN.1 value as forge's codec represents it, in a type of our own: the published declarations
 * (`express-ca-api/x509`) must not need `@types/node-forge`, which is no dependency of the package.
 * `value` is the children of a constructed value, else the content bytes as a binary string.
 */
export interface Node {
  tagClass: number;
  type: number;
  constructed: boolean;
  composed: boolean;
  value: string | Node[];
}

/** Tag classes (X.690 §8.1.2.2), the numbers forge uses. */
export const Class = { UNIVERSAL: 0x00, APPLICATION: 0x40, CONTEXT_SPECIFIC: 0x80, PRIVATE: 0xc0 } as const;

/** Universal tag numbers (X.690 §8.4), forge's names. */
export const Type = {
  NONE: 0,
  BOOLEAN: 1,
  INTEGER: 2,
  BITSTRING: 3,
  OCTETSTRING: 4,
  NULL: 5,
  OID: 6,
  ODESC: 7,
  EXTERNAL: 8,
  REAL: 9,
  ENUMERATED: 10,
  EMBEDDED: 11,
  UTF8: 12,
  ROID: 13,
  SEQUENCE: 16,
  SET: 17,
  PRINTABLESTRING: 19,
  IA5STRING: 22,
  UTCTIME: 23,
  GENERALIZEDTIME: 24,
  BMPSTRING: 30,
} as const;

/** Our node as forge's (the same object: only the declared types differ). */
const forgeNode = (node: Node): forge.asn1.Asn1 => node as forge.asn1.Asn1;

/** Universal tag numbers forge does not name. */
export const TAG_UNIVERSAL_STRING = 28;
export const TAG_VISIBLE_STRING = 26;
export const TAG_TELETEX_STRING = 20;
export const TAG_NUMERIC_STRING = 18;

export function toBinary(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

export function fromBinary(s: string): Buffer {
  return Buffer.from(s, 'latin1');
}

/** Parse one complete DER value. Throws `X509Error('parse')` on anything else. */
export function parseDer(der: Uint8Array, what = 'DER value'): Node {
  if (der.length === 0) throw parseError(`${what}: empty input`);
  try {
    // @types/node-forge only knows the old boolean `strict` argument; forge itself takes options.
    const fromDer = forge.asn1.fromDer as unknown as (b: forge.util.ByteStringBuffer, o: object) => Node;
    return fromDer(forge.util.createBuffer(toBinary(der)), {
      strict: true,
      parseAllBytes: true,
      decodeBitStrings: false,
    });
  } catch (e) {
    throw parseError(`${what}: invalid DER (${(e as Error).message})`);
  }
}

export function toDer(node: Node): Buffer {
  return fromBinary(forge.asn1.toDer(forgeNode(node)).getBytes());
}

// ---------------------------------------------------------------------------------------------------
// Builders

function universal(type: number, constructed: boolean, value: Node[] | string): Node {
  return forge.asn1.create(Class.UNIVERSAL, type, constructed, value);
}

export function seq(children: Node[]): Node {
  return universal(Type.SEQUENCE, true, children);
}

export function set(children: Node[]): Node {
  return universal(Type.SET, true, children);
}

/**
 * Encoded OIDs by dotted text: certificates repeat a few dozen OIDs, and a lookup is cheaper than
 * encoding (bounded: cleared when full, as a request may carry OIDs of its own).
 */
const encodedOids = new Map<string, string>();
const ENCODED_OIDS_MAX = 4096;

export function oid(dotted: string): Node {
  let content = encodedOids.get(dotted);
  if (content === undefined) {
    content = toBinary(oidToContent(dotted));
    if (encodedOids.size >= ENCODED_OIDS_MAX) encodedOids.clear();
    encodedOids.set(dotted, content);
  }
  return universal(Type.OID, false, content);
}

export function bool(value: boolean): Node {
  return universal(Type.BOOLEAN, false, value ? '\xff' : '\x00');
}

export function nullValue(): Node {
  return universal(Type.NULL, false, '');
}

/** Minimal two's-complement big-endian encoding of an integer. */
export function integerBytes(value: bigint): Buffer {
  if (value === 0n) return Buffer.from([0]);
  const negative = value < 0n;
  let hex = (negative ? -value - 1n : value).toString(16);
  if (hex.length % 2) hex = '0' + hex;
  let bytes = Buffer.from(hex, 'hex');
  if (negative) bytes = Buffer.from(bytes.map((b) => ~b & 0xff));
  const highBit = (bytes[0] & 0x80) !== 0;
  if (!negative && highBit) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  if (negative && !highBit) bytes = Buffer.concat([Buffer.from([0xff]), bytes]);
  return bytes;
}

export function integer(value: bigint | number): Node {
  return universal(Type.INTEGER, false, toBinary(integerBytes(BigInt(value))));
}

export function octets(bytes: Uint8Array): Node {
  return universal(Type.OCTETSTRING, false, toBinary(bytes));
}

export function bitString(bytes: Uint8Array, unusedBits = 0): Node {
  return universal(Type.BITSTRING, false, String.fromCharCode(unusedBits) + toBinary(bytes));
}

/** Universal string types we can write, by tag number. */
export function string(tag: number, value: string): Node {
  // forge writes a BMPString's value itself (one 16-bit unit per JS char), so it takes the JS string.
  if (tag === Type.BMPSTRING) return universal(tag, false, value);
  return universal(tag, false, toBinary(encodeString(tag, value)));
}

export function utf8(value: string): Node {
  return string(Type.UTF8, value);
}

export function ia5(value: string): Node {
  return string(Type.IA5STRING, value);
}

export function printable(value: string): Node {
  return string(Type.PRINTABLESTRING, value);
}

function encodeString(tag: number, value: string): Buffer {
  switch (tag) {
    case Type.BMPSTRING: {
      const b = Buffer.alloc(value.length * 2);
      for (let i = 0; i < value.length; i++) b.writeUInt16BE(value.charCodeAt(i), i * 2);
      return b;
    }
    case TAG_UNIVERSAL_STRING: {
      const cps = [...value].map((c) => c.codePointAt(0)!);
      const b = Buffer.alloc(cps.length * 4);
      cps.forEach((cp, i) => b.writeUInt32BE(cp, i * 4));
      return b;
    }
    case Type.UTF8:
      return Buffer.from(value, 'utf8');
    default:
      // PrintableString, IA5String, VisibleString, NumericString, TeletexString (treated as Latin-1)
      return Buffer.from(value, 'latin1');
  }
}

/** Context-specific tag `[n]` around children (constructed) or raw bytes (primitive). */
export function context(n: number, constructed: boolean, value: Node[] | Uint8Array): Node {
  return forge.asn1.create(Class.CONTEXT_SPECIFIC, n, constructed, Array.isArray(value) ? value : toBinary(value as Uint8Array));
}

/** `[n] EXPLICIT inner` */
export function explicit(n: number, inner: Node): Node {
  return forge.asn1.create(Class.CONTEXT_SPECIFIC, n, true, [inner]);
}

/** `[n] IMPLICIT inner`: same content, the tag replaced. */
export function implicit(n: number, inner: Node): Node {
  return forge.asn1.create(Class.CONTEXT_SPECIFIC, n, inner.constructed, inner.value as Node[] | string);
}

/** UTCTime for 1950–2049, GeneralizedTime otherwise (RFC 5280 §4.1.2.5). Seconds precision. */
export function time(date: Date): Node {
  const y = date.getUTCFullYear();
  return y >= 1950 && y < 2050 ? utcTime(date) : generalizedTime(date);
}

export function utcTime(date: Date): Node {
  return universal(Type.UTCTIME, false, asn1TimeText(date, 'utc'));
}

export function generalizedTime(date: Date): Node {
  return universal(Type.GENERALIZEDTIME, false, asn1TimeText(date, 'generalized'));
}

// ---------------------------------------------------------------------------------------------------
// Readers: each checks the tag it expects and throws a parse error otherwise.

export function describe(node: Node): string {
  const cls = ['universal', 'application', 'context', 'private'][node.tagClass >> 6];
  return `${cls} tag ${node.type}${node.constructed ? ' (constructed)' : ''}`;
}

export function expectUniversal(node: Node | undefined, type: number, what: string): Node {
  if (!node || node.tagClass !== Class.UNIVERSAL || node.type !== type) {
    throw parseError(`${what}: unexpected ${node ? describe(node) : 'end of data'}`);
  }
  return node;
}

export function children(node: Node | undefined, what: string): Node[] {
  if (!node || !node.constructed || !Array.isArray(node.value)) {
    throw parseError(`${what}: expected a constructed value`);
  }
  return node.value as Node[];
}

export function readSequence(node: Node | undefined, what: string): Node[] {
  return children(expectUniversal(node, Type.SEQUENCE, what), what);
}

export function readSet(node: Node | undefined, what: string): Node[] {
  return children(expectUniversal(node, Type.SET, what), what);
}

/** Raw content bytes of a primitive value. */
export function contentBytes(node: Node, what: string): Buffer {
  if (node.constructed || typeof node.value !== 'string') {
    throw parseError(`${what}: expected a primitive value`);
  }
  return fromBinary(node.value);
}

export function readOid(node: Node | undefined, what = 'OBJECT IDENTIFIER'): string {
  const n = expectUniversal(node, Type.OID, what);
  return contentToOid(contentBytes(n, what), what);
}

export function readIntegerContent(bytes: Buffer, what: string): bigint {
  if (bytes.length === 0) throw parseError(`${what}: empty INTEGER`);
  let v = BigInt('0x' + bytes.toString('hex'));
  if (bytes[0] & 0x80) v -= 1n << BigInt(bytes.length * 8);
  return v;
}

export function readInteger(node: Node | undefined, what = 'INTEGER'): bigint {
  const n = expectUniversal(node, Type.INTEGER, what);
  return readIntegerContent(contentBytes(n, what), what);
}

export function readBoolean(node: Node | undefined, what = 'BOOLEAN'): boolean {
  const bytes = contentBytes(expectUniversal(node, Type.BOOLEAN, what), what);
  if (bytes.length !== 1) throw parseError(`${what}: malformed BOOLEAN`);
  return bytes[0] !== 0;
}

export function readOctets(node: Node | undefined, what = 'OCTET STRING'): Buffer {
  return contentBytes(expectUniversal(node, Type.OCTETSTRING, what), what);
}

export function readBitString(node: Node | undefined, what = 'BIT STRING'): { bytes: Buffer; unusedBits: number } {
  const raw = contentBytes(expectUniversal(node, Type.BITSTRING, what), what);
  if (raw.length === 0 || raw[0] > 7 || (raw.length === 1 && raw[0] !== 0)) {
    throw parseError(`${what}: malformed BIT STRING`);
  }
  return { bytes: raw.subarray(1), unusedBits: raw[0] };
}

const STRING_TAGS = new Set<number>([
  Type.UTF8,
  Type.PRINTABLESTRING,
  Type.IA5STRING,
  Type.BMPSTRING,
  TAG_UNIVERSAL_STRING,
  TAG_VISIBLE_STRING,
  TAG_TELETEX_STRING,
  TAG_NUMERIC_STRING,
]);

export function isStringNode(node: Node): boolean {
  return node.tagClass === Class.UNIVERSAL && STRING_TAGS.has(node.type);
}

/** Decode any of the universal character string types to a JS string. */
export function readString(node: Node | undefined, what = 'string'): string {
  if (!node || !isStringNode(node)) throw parseError(`${what}: expected a character string`);
  // forge has already decoded a BMPString into a JS string (UTF-16 code units); its bytes are gone.
  if (node.type === Type.BMPSTRING && typeof node.value === 'string') return node.value;
  const bytes = contentBytes(node, what);
  switch (node.type as number) {
    case Type.UTF8:
      return bytes.toString('utf8');
    case Type.BMPSTRING: {
      if (bytes.length % 2) throw parseError(`${what}: malformed BMPString`);
      let s = '';
      for (let i = 0; i < bytes.length; i += 2) s += String.fromCharCode(bytes.readUInt16BE(i));
      return s;
    }
    case TAG_UNIVERSAL_STRING: {
      if (bytes.length % 4) throw parseError(`${what}: malformed UniversalString`);
      let s = '';
      for (let i = 0; i < bytes.length; i += 4) {
        const cp = bytes.readUInt32BE(i);
        if (cp > 0x10ffff) throw parseError(`${what}: malformed UniversalString`);
        s += String.fromCodePoint(cp);
      }
      return s;
    }
    default:
      return bytes.toString('latin1');
  }
}

/** UTCTime or GeneralizedTime → Date (UTC). */
export function readTime(node: Node | undefined, what = 'time'): Date {
  if (!node || node.tagClass !== Class.UNIVERSAL) throw parseError(`${what}: expected a time`);
  const s = contentBytes(node, what).toString('latin1');
  let m: RegExpMatchArray | null;
  let year: number;
  if (node.type === Type.UTCTIME) {
    m = s.match(/^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)?Z$/);
    if (!m) throw parseError(`${what}: malformed UTCTime "${s}"`);
    const yy = Number(m[1]);
    year = yy >= 50 ? 1900 + yy : 2000 + yy;
  } else if (node.type === Type.GENERALIZEDTIME) {
    m = s.match(/^(\d\d\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)?(?:\.(\d+))?Z$/);
    if (!m) throw parseError(`${what}: malformed GeneralizedTime "${s}"`);
    year = Number(m[1]);
  } else {
    throw parseError(`${what}: expected UTCTime or GeneralizedTime, got ${describe(node)}`);
  }
  const ms = node.type === Type.GENERALIZEDTIME && m[7] ? Number(('0.' + m[7]).slice(0, 5)) * 1000 : 0;
  const d = new Date(Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0), Math.round(ms)));
  if (Number.isNaN(d.getTime())) throw parseError(`${what}: invalid date "${s}"`);
  return d;
}

/** Context-specific tag number of a node, or -1 when it is not context-specific. */
export function contextTag(node: Node): number {
  return node.tagClass === Class.CONTEXT_SPECIFIC ? node.type : -1;
}

// ---------------------------------------------------------------------------------------------------
// Byte positions: the strict DER walker lives in tlv.ts; OID content is read by oid-der.ts.

export { readSignedEnvelope, readTlv, readTlvChildren, type Tlv } from './tlv';

/** Dotted form of an OBJECT IDENTIFIER's content bytes (for callers working on `Tlv`s). */
export { contentToOid as oidFromContent } from './oid-der';
