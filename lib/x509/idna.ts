/**
 * IDNA 2008 domain encoding as the Python `idna` package does it (`idna.encode(name)`, no UTS 46
 * mapping), because the reference service normalises DNS names, e-mail domains and URI hosts with it
 * and its error texts end up in API error messages ("Invalid domain: <name>: <idna error>").
 *
 * ASCII labels are checked (after lower-casing) but returned unchanged, so `Example.com` stays as
 * written; non-ASCII labels must already be lower-case NFC and become `xn--` + Punycode (RFC 3492).
 *
 * Approximation: the exact IDNA 2008 code point table (RFC 5892) is replaced by its derivation rule
 * on Unicode properties (letters, marks and decimal digits that are stable under lower-casing and
 * NFKC, plus the RFC 5892 exceptions); the Bidi rule (RFC 5893) and CONTEXTJ/CONTEXTO rules are not
 * checked (those code points are rejected, except the Arabic-Indic digits and U+00B7, U+0375, U+05F3,
 * U+05F4, U+30FB which are accepted). This is pure code: no I/O, no Node `url` dependency.
 */

export class IdnaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdnaError';
  }
}

// ---------------------------------------------------------------------------------------------------
// Punycode (RFC 3492)

const BASE = 36;
const TMIN = 1;
const TMAX = 26;
const SKEW = 38;
const DAMP = 700;
const INITIAL_BIAS = 72;
const INITIAL_N = 128;

function adapt(delta: number, numPoints: number, first: boolean): number {
  let d = first ? Math.floor(delta / DAMP) : delta >> 1;
  d += Math.floor(d / numPoints);
  let k = 0;
  while (d > ((BASE - TMIN) * TMAX) >> 1) {
    d = Math.floor(d / (BASE - TMIN));
    k += BASE;
  }
  return k + Math.floor(((BASE - TMIN + 1) * d) / (d + SKEW));
}

function threshold(k: number, bias: number): number {
  if (k <= bias) return TMIN;
  if (k >= bias + TMAX) return TMAX;
  return k - bias;
}

function encodeDigit(d: number): string {
  return String.fromCharCode(d < 26 ? 97 + d : 22 + d); // a..z, 0..9
}

function decodeDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 22; // 0..9 → 26..35
  if (c >= 65 && c <= 90) return c - 65;
  if (c >= 97 && c <= 122) return c - 97;
  return BASE;
}

/** Punycode of a label (without the `xn--` prefix). */
export function punycodeEncode(input: string): string {
  const cps = [...input].map((c) => c.codePointAt(0)!);
  let output = cps
    .filter((cp) => cp < 0x80)
    .map((cp) => String.fromCharCode(cp))
    .join('');
  const basic = output.length;
  let handled = basic;
  if (basic > 0) output += '-';
  let n = INITIAL_N;
  let delta = 0;
  let bias = INITIAL_BIAS;
  while (handled < cps.length) {
    const m = Math.min(...cps.filter((cp) => cp >= n));
    delta += (m - n) * (handled + 1);
    n = m;
    for (const cp of cps) {
      if (cp < n) delta++;
      if (cp === n) {
        let q = delta;
        for (let k = BASE; ; k += BASE) {
          const t = threshold(k, bias);
          if (q < t) break;
          output += encodeDigit(t + ((q - t) % (BASE - t)));
          q = Math.floor((q - t) / (BASE - t));
        }
        output += encodeDigit(q);
        bias = adapt(delta, handled + 1, handled === basic);
        delta = 0;
        handled++;
      }
    }
    delta++;
    n++;
  }
  return output;
}

/** Inverse of `punycodeEncode`; throws `IdnaError('Invalid A-label')` on malformed input. */
export function punycodeDecode(input: string): string {
  const bad = () => new IdnaError('Invalid A-label');
  const sep = input.lastIndexOf('-');
  const output: number[] = [];
  if (sep > 0) {
    for (let j = 0; j < sep; j++) {
      const c = input.charCodeAt(j);
      if (c >= 0x80) throw bad();
      output.push(c);
    }
  }
  let pos = sep > 0 ? sep + 1 : 0;
  let i = 0;
  let n = INITIAL_N;
  let bias = INITIAL_BIAS;
  while (pos < input.length) {
    const oldi = i;
    let w = 1;
    for (let k = BASE; ; k += BASE) {
      if (pos >= input.length) throw bad();
      const digit = decodeDigit(input.charCodeAt(pos++));
      if (digit >= BASE) throw bad();
      i += digit * w;
      const t = threshold(k, bias);
      if (digit < t) break;
      w *= BASE - t;
      if (!Number.isSafeInteger(i) || !Number.isSafeInteger(w)) throw bad();
    }
    bias = adapt(i - oldi, output.length + 1, oldi === 0);
    n += Math.floor(i / (output.length + 1));
    i %= output.length + 1;
    if (n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) throw bad();
    output.splice(i, 0, n);
    i++;
  }
  return String.fromCodePoint(...output);
}

// ---------------------------------------------------------------------------------------------------
// Label checks (idna.core.check_label)

/** Python's `repr()` of a str, for error messages that quote a label. */
export function pyRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\' || ch === quote) out += '\\' + ch;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f || (cp > 0x7f && ch !== ' ' && /[\p{C}\p{Z}]/u.test(ch))) {
      if (cp <= 0xff) out += '\\x' + cp.toString(16).padStart(2, '0');
      else if (cp <= 0xffff) out += '\\u' + cp.toString(16).padStart(4, '0');
      else out += '\\U' + cp.toString(16).padStart(8, '0');
    } else out += ch;
  }
  return quote + out + quote;
}

function codepointName(cp: number): string {
  return 'U+' + cp.toString(16).toUpperCase().padStart(4, '0');
}

/** RFC 5892 exceptions that are PVALID although the derivation rule would say otherwise. */
const PVALID_EXCEPTIONS = new Set([0x00df, 0x03c2, 0x06fd, 0x06fe, 0x0f0b, 0x3007]);
/** CONTEXTO code points we accept without checking their context (see module comment). */
const ACCEPTED_CONTEXTO = new Set([0x00b7, 0x0375, 0x05f3, 0x05f4, 0x30fb]);

function isPvalid(ch: string): boolean {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x80) return (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x30 && cp <= 0x39) || cp === 0x2d;
  if (PVALID_EXCEPTIONS.has(cp) || ACCEPTED_CONTEXTO.has(cp)) return true;
  if (!/[\p{Ll}\p{Lo}\p{Lm}\p{Mn}\p{Mc}\p{Nd}]/u.test(ch)) return false;
  // Unstable under case folding or compatibility normalisation → DISALLOWED in IDNA 2008.
  return ch.toLowerCase() === ch && ch.normalize('NFKC') === ch;
}

function checkLabel(label: string): void {
  if (label.length === 0) throw new IdnaError('Empty Label');
  if (label.normalize('NFC') !== label) throw new IdnaError('Label must be in Normalization Form C');
  const cps = [...label];
  if (label.slice(2, 4) === '--') throw new IdnaError('Label has disallowed hyphens in 3rd and 4th position');
  if (label.startsWith('-') || label.endsWith('-')) throw new IdnaError('Label must not start or end with a hyphen');
  if (/^\p{M}/u.test(label)) throw new IdnaError('Label begins with an illegal combining character');
  cps.forEach((ch, pos) => {
    if (!isPvalid(ch)) {
      throw new IdnaError(`Codepoint ${codepointName(ch.codePointAt(0)!)} at position ${pos + 1} of ${pyRepr(label)} not allowed`);
    }
  });
}

const ASCII = /^[\x00-\x7f]*$/;

/** idna.core.ulabel for an ASCII label: validates it (decoding `xn--` labels). */
function checkAsciiLabel(label: string): void {
  const lower = label.toLowerCase();
  if (lower.startsWith('xn--')) {
    const body = lower.slice(4);
    if (!body) throw new IdnaError('Malformed A-label, no Punycode eligible content found');
    if (body.endsWith('-')) throw new IdnaError('A-label must not end with a hyphen');
    const ulabel = punycodeDecode(body);
    checkLabel(ulabel);
    // RFC 5891 §5.4: an A-label is the encoding of its U-label, so it must come back from the round trip.
    if (punycodeEncode(ulabel) !== body) throw new IdnaError('Invalid A-label: it is not the Punycode of its U-label');
  } else {
    checkLabel(lower);
  }
}

/** Why an ASCII label is not a valid IDNA label (an `xn--` label: its Punycode, its U-label, the round trip), or null. */
export function asciiLabelProblem(label: string): string | null {
  try {
    checkAsciiLabel(label);
    return null;
  } catch (e) {
    if (e instanceof IdnaError) return e.message;
    throw e;
  }
}

function encodeLabel(label: string): string {
  if (ASCII.test(label)) {
    checkAsciiLabel(label);
    if (label.length > 63) throw new IdnaError('Label too long');
    return label;
  }
  checkLabel(label);
  const alabel = 'xn--' + punycodeEncode(label);
  if (alabel.length > 63) throw new IdnaError('Label too long');
  return alabel;
}

/**
 * `idna.encode(name).decode()`: the ASCII (A-label) form of a domain. Labels are split at `.` and
 * the ideographic full stops; a single trailing dot is kept. Throws `IdnaError` with the `idna`
 * package's message.
 */
export function encodeDomain(name: string): string {
  const labels = name.split(/[.\u3002\uff0e\uff61]/);
  if (labels.length === 1 && labels[0] === '') throw new IdnaError('Empty domain');
  let trailingDot = false;
  if (labels[labels.length - 1] === '') {
    labels.pop();
    trailingDot = true;
  }
  const out = labels.map(encodeLabel);
  if (trailingDot) out.push('');
  const result = out.join('.');
  if (result.length > (trailingDot ? 254 : 253)) throw new IdnaError('Domain too long');
  return result;
}
