/**
 * OBJECT IDENTIFIER content octets (X.690 §8.19) to and from dotted text, with arcs of any size up to
 * `MAX_ARC_BITS` — BigInt arithmetic, so that UUID arcs (`2.25.<128-bit integer>`, ITU-T X.667) read
 * and write like any other. node-forge, our DER codec otherwise, writes arcs of at most 32 bits and
 * reads at most 53; OIDs are ours alone.
 *
 * DER: each arc (the first two as one, 40 × first + second) in base 128, most significant group
 * first, the high bit set on every byte but the arc's last, and no leading 0x80 byte (the shortest
 * form, X.690 §8.19.2).
 */
import { parseError } from './errors';

/** The largest arc, in bits, read or written: a UUID needs 128; beyond 256 nothing real is known. */
export const MAX_ARC_BITS = 256;

/** The most base-128 bytes one arc of MAX_ARC_BITS takes. */
const MAX_ARC_BYTES = Math.ceil(MAX_ARC_BITS / 7);

const DOTTED = /^(0|[1-9]\d*)(\.(0|[1-9]\d*))+$/;

/** Most decimal digits an arc of MAX_ARC_BITS can have; longer text is refused before BigInt reads it. */
const MAX_ARC_DIGITS = Math.ceil(MAX_ARC_BITS * Math.log10(2));

const LIMIT = 1n << BigInt(MAX_ARC_BITS);

/**
 * Below this a value times 128 plus 127 is still a safe integer: arcs are read and written with plain
 * numbers up to here (almost every OID there is), with BigInt only beyond.
 */
const SAFE_SHIFT = 2 ** 45;

/** The arcs as DER encodes them: the first two merged; null when the text is no valid OID. */
export function encodedArcs(dotted: string): (number | bigint)[] | null {
  if (!DOTTED.test(dotted)) return null;
  const texts = dotted.split('.');
  if (texts.some((arc) => arc.length > MAX_ARC_DIGITS)) return null;
  const arcs = texts.map((a) => (a.length <= 15 ? Number(a) : BigInt(a)));
  const [first, second] = arcs;
  if (first > 2 || (first < 2 && second >= 40)) return null;
  const merged = typeof second === 'number' && second < SAFE_SHIFT ? Number(first) * 40 + second : BigInt(first) * 40n + BigInt(second);
  const encoded = [merged, ...arcs.slice(2)];
  return encoded.every((arc) => typeof arc === 'number' || arc < LIMIT) ? encoded : null;
}

/** Base-128 groups of one arc, most significant first, appended to `out`. */
function pushArc(out: number[], arc: number | bigint): void {
  const groups: number[] = [];
  if (typeof arc === 'number') {
    do {
      groups.push(arc % 128);
      arc = Math.floor(arc / 128);
    } while (arc > 0);
  } else {
    do {
      groups.push(Number(arc & 0x7fn));
      arc >>= 7n;
    } while (arc > 0n);
  }
  for (let i = groups.length - 1; i >= 0; i--) out.push(i > 0 ? groups[i] | 0x80 : groups[i]);
}

/** Content octets of the OID `dotted` (throws on text `encodedArcs` refuses). */
export function oidToContent(dotted: string): Buffer {
  const arcs = encodedArcs(dotted);
  if (!arcs) throw parseError(`${dotted}: not an encodable OBJECT IDENTIFIER`);
  const out: number[] = [];
  for (const arc of arcs) pushArc(out, arc);
  return Buffer.from(out);
}

/**
 * OIDs decoded before, by their content octets (as latin1 text): a certificate names a few dozen,
 * nearly all from a small set (algorithms, attribute types, extensions), and decoding each again made
 * a measurable share of issuance's garbage. Bounded, so that input full of novel OIDs cannot grow it.
 */
const DECODED = new Map<string, string>();
const MAX_DECODED = 512;
const MAX_CACHED_BYTES = 32;

/** Dotted text of OID content octets; a parse error for anything DER does not allow. */
export function contentToOid(bytes: Uint8Array, what = 'OBJECT IDENTIFIER'): string {
  if (bytes.length > MAX_CACHED_BYTES) return decodeOid(bytes, what); // never remembered: no key to build
  const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const known = DECODED.get(key);
  if (known !== undefined) return known;
  const dotted = decodeOid(bytes, what);
  if (DECODED.size < MAX_DECODED) DECODED.set(key, dotted);
  return dotted;
}

function decodeOid(bytes: Uint8Array, what: string): string {
  if (bytes.length === 0 || (bytes[bytes.length - 1] & 0x80) !== 0) throw parseError(`${what}: malformed OID`);
  const arcs: (number | bigint)[] = [];
  let value = 0;
  let big: bigint | null = null; // the arc under way, once it outgrew a safe number
  let length = 0;
  for (const byte of bytes) {
    if (length === 0 && byte === 0x80) throw parseError(`${what}: malformed OID (an arc not in its shortest form)`);
    if (++length > MAX_ARC_BYTES) throw parseError(`${what}: an OID arc longer than ${MAX_ARC_BITS} bits`);
    if (big === null && value >= SAFE_SHIFT) big = BigInt(value);
    if (big === null) value = value * 128 + (byte & 0x7f);
    else big = (big << 7n) | BigInt(byte & 0x7f);
    if ((byte & 0x80) === 0) {
      if (big !== null && big >= LIMIT) throw parseError(`${what}: an OID arc longer than ${MAX_ARC_BITS} bits`);
      arcs.push(big ?? value);
      value = 0;
      big = null;
      length = 0;
    }
  }
  const merged = arcs[0];
  const head = typeof merged === 'number' ? (merged < 80 ? [Math.floor(merged / 40), merged % 40] : [2, merged - 80]) : [2n, merged - 80n];
  return [...head, ...arcs.slice(1)].join('.');
}
