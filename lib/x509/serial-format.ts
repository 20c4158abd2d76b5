/**
 * Certificate serial number text forms (docs/COMPATIBILITY.md §2, docs/COMPATIBILITY.md §4, docs/reference/differences.md D7).
 *
 * API/database form: upper-case hex, no separators, no leading zeros ("0" for zero).
 * CLI form: the same digits left-padded to an even length, bytes joined by ':'.
 */

/** API form of a serial number. Negative serials (invalid per RFC 5280, but readable) keep a '-'. */
export function serialToHex(n: bigint): string {
  return n < 0n ? '-' + (-n).toString(16).toUpperCase() : n.toString(16).toUpperCase();
}

/** CLI form: `08:C4:FC:...`. Accepts a bigint or any text `normaliseSerial` accepts. */
export function serialToColons(n: bigint | string): string {
  let hex: string;
  if (typeof n === 'bigint') {
    hex = serialToHex(n < 0n ? -n : n);
  } else {
    const canonical = normaliseSerial(n);
    if (canonical === null) throw new TypeError(`not a serial number: ${JSON.stringify(n)}`);
    hex = canonical;
  }
  if (hex.length % 2) hex = '0' + hex;
  return (typeof n === 'bigint' && n < 0n ? '-' : '') + hex.match(/../g)!.join(':');
}

const SERIAL_INPUT = /^[0-9A-Fa-f:]+$/;

/**
 * Canonical form of a serial given in a URL path or on the command line: case-insensitive, colons
 * removed, leading zeros stripped ("000" → "0"). Returns null for text that is not hex digits and colons
 * or has no digit at all.
 */
export function normaliseSerial(text: string): string | null {
  if (!SERIAL_INPUT.test(text)) return null;
  const digits = text.replace(/:/g, '');
  if (digits.length === 0) return null;
  const stripped = digits.replace(/^0+/, '').toUpperCase();
  return stripped === '' ? '0' : stripped;
}
