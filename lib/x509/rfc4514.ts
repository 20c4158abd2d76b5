/**
 * RFC 4514 string form of Names, as the CLI takes subjects (docs/COMPATIBILITY.md §4: "C=AT,O=Example,CN=x").
 *
 * Like django-ca (`parse_name_rfc4514` / `format_name_rfc4514`), and unlike RFC 4514 itself, the
 * attributes are written in certificate order, not reversed: the string reads the way the Name is
 * stored. Keywords: the RFC 4514 ones (CN, L, ST, O, OU, C, STREET, DC, UID), then the long names of
 * docs/COMPATIBILITY.md §2 (`emailAddress`, `serialNumber`, ...), else the dotted OID. Parsing accepts every
 * alias of docs/COMPATIBILITY.md §2 as well and is as strict as the `cryptography` parser (no blanks around `,`,
 * `+` or `=`); a multi-valued RDN (`CN=a+O=b`) is flattened, since the API's Name is flat.
 *
 * Differences to `cryptography`, where it is wrong: `\XX` hex pairs are UTF-8 bytes (RFC 4514 §3),
 * not Latin-1 characters; `#hex` is the DER of the value (for x500UniqueIdentifier: the raw bytes,
 * which is what the formatter writes); a value that is a single space round-trips.
 */
import * as asn1 from './asn1';
import { invalid } from './errors';
import { nameOidLongName, parseName } from './name';
import { MULTI_VALUED_NAME_OIDS, NAME_OID_ALIASES, OID_X500_UNIQUE_IDENTIFIER } from './oids';
import { Name, NameAttribute } from './types';

/** RFC 4514 §3 keywords (what `cryptography` writes and reads by default). */
const RFC4514_KEYWORDS: Readonly<Record<string, string>> = {
  CN: '2.5.4.3',
  L: '2.5.4.7',
  ST: '2.5.4.8',
  O: '2.5.4.10',
  OU: '2.5.4.11',
  C: '2.5.4.6',
  STREET: '2.5.4.9',
  DC: '0.9.2342.19200300.100.1.25',
  UID: '0.9.2342.19200300.100.1.1',
};

const KEYWORD_BY_OID: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(RFC4514_KEYWORDS).map(([k, v]) => [v, k]));

/** Every keyword we read: exact spelling first, then (RFC 4514 §3) case-insensitively. */
const KEYWORDS: Readonly<Record<string, string>> = { ...NAME_OID_ALIASES, ...RFC4514_KEYWORDS };
const KEYWORDS_LOWER: ReadonlyMap<string, string> = new Map(Object.entries(KEYWORDS).map(([k, v]) => [k.toLowerCase(), v]));

const OID_RE = /^(0|[1-9]\d*)(\.(0|[1-9]\d*))+/;
const DESCR_RE = /^[a-zA-Z][a-zA-Z\d-]*/;
/** Characters that must be escaped anywhere in a value (RFC 4514 §2.4 "escaped" + NUL). */
const SPECIAL = new Set(['"', '+', ',', ';', '<', '>', '\\']);

class SyntaxFailure extends Error {}

/** A cursor over the input; every method throws `SyntaxFailure` when the grammar is not met. */
class Parser {
  private pos = 0;

  constructor(private readonly text: string) {}

  get done(): boolean {
    return this.pos >= this.text.length;
  }

  peek(): string {
    return this.text[this.pos] ?? '';
  }

  expect(ch: string): void {
    if (this.peek() !== ch) throw new SyntaxFailure();
    this.pos++;
  }

  private match(re: RegExp): string | null {
    const m = re.exec(this.text.slice(this.pos));
    if (!m) return null;
    this.pos += m[0].length;
    return m[0];
  }

  attributeType(): string {
    const dotted = this.match(OID_RE);
    if (dotted) return dotted;
    const descr = this.match(DESCR_RE);
    if (!descr) throw new SyntaxFailure();
    const exact = Object.prototype.hasOwnProperty.call(KEYWORDS, descr);
    const oid = exact ? KEYWORDS[descr] : KEYWORDS_LOWER.get(descr.toLowerCase());
    if (!oid) throw new SyntaxFailure();
    return oid;
  }

  /** `#` hex string: the raw bytes. */
  hexValue(): Buffer {
    this.expect('#');
    const hex = this.match(/^(?:[0-9A-Fa-f]{2})+/);
    if (!hex) throw new SyntaxFailure();
    return Buffer.from(hex, 'hex');
  }

  /** An escaped string value, up to the next unescaped `,` or `+` (or the end). */
  stringValue(): string {
    const start = this.pos;
    const bytes: number[] = [];
    const flushBytes = (out: string[]) => {
      if (!bytes.length) return;
      try {
        out.push(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(bytes)));
      } catch {
        throw new SyntaxFailure();
      }
      bytes.length = 0;
    };
    const out: string[] = [];
    let lastWasEscapedSpace = false;
    while (!this.done && this.peek() !== ',' && this.peek() !== '+') {
      const ch = this.text[this.pos];
      lastWasEscapedSpace = false;
      if (ch === '\\') {
        const next = this.text[this.pos + 1] ?? '';
        const pair = /^[0-9A-Fa-f]{2}$/.test(this.text.slice(this.pos + 1, this.pos + 3));
        if (pair) {
          bytes.push(parseInt(this.text.slice(this.pos + 1, this.pos + 3), 16));
          this.pos += 3;
          continue;
        }
        if (!(SPECIAL.has(next) || next === ' ' || next === '#' || next === '=')) throw new SyntaxFailure();
        flushBytes(out);
        out.push(next);
        lastWasEscapedSpace = next === ' ';
        this.pos += 2;
        continue;
      }
      if (SPECIAL.has(ch) || ch === '\0') throw new SyntaxFailure();
      if (this.pos === start && (ch === '#' || ch === ' ')) throw new SyntaxFailure();
      flushBytes(out);
      out.push(ch);
      this.pos++;
    }
    flushBytes(out);
    // A trailing space must be escaped.
    if (this.pos > start && this.text[this.pos - 1] === ' ' && !lastWasEscapedSpace) throw new SyntaxFailure();
    return out.join('');
  }
}

/** `#hex` value: DER of a string (RFC 4514 §2.4); cryptography reads the bytes as UTF-8 text. */
function hexToValue(oid: string, bytes: Buffer): string {
  if (oid === OID_X500_UNIQUE_IDENTIFIER) return bytes.toString('base64');
  try {
    return asn1.readString(asn1.parseDer(bytes), 'value');
  } catch {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new SyntaxFailure();
    }
  }
}

function parseAttributes(text: string): NameAttribute[] {
  const p = new Parser(text);
  const attributes: NameAttribute[] = [];
  if (p.done) return attributes;
  for (;;) {
    const oid = p.attributeType();
    p.expect('=');
    const value = p.peek() === '#' ? hexToValue(oid, p.hexValue()) : p.stringValue();
    attributes.push({ oid, value });
    if (p.done) return attributes;
    if (p.peek() === '+' || p.peek() === ',') p.expect(p.peek());
    else throw new SyntaxFailure();
  }
}

/**
 * `C=AT,O=Example,CN=example.com` → Name in the order written. Syntax errors:
 * `"<text>: Could not parse name as RFC 4514 string."`; a repeated single-valued attribute:
 * `Subject contains multiple "<name>" fields` (the CLI's message); then the Name rules of docs/COMPATIBILITY.md §2
 * All as `X509Error('validation')` with loc `[]` (or the attribute index for §3 rules).
 */
export function parseRfc4514(text: string): Name {
  let attributes: NameAttribute[];
  try {
    attributes = parseAttributes(text);
  } catch (e) {
    if (e instanceof SyntaxFailure) throw invalid(`${text}: Could not parse name as RFC 4514 string.`);
    throw e;
  }
  const seen = new Set<string>();
  for (const { oid } of attributes) {
    if (seen.has(oid) && !MULTI_VALUED_NAME_OIDS.has(oid)) {
      throw invalid(`Subject contains multiple "${nameOidLongName(oid)}" fields`);
    }
    seen.add(oid);
  }
  return parseName(attributes);
}

/** RFC 4514 §2.4 escaping, as `cryptography` does it (but correct for a value of one space). */
function escapeValue(value: string): string {
  const chars = [...value];
  return chars
    .map((c, i) => {
      if ('\\"+,;<>'.includes(c)) return '\\' + c;
      if (c === '\0') return '\\00';
      if (i === 0 && (c === '#' || c === ' ')) return '\\' + c;
      if (i === chars.length - 1 && c === ' ') return '\\ ';
      return c;
    })
    .join('');
}

function keyword(oid: string): string {
  return KEYWORD_BY_OID[oid] ?? nameOidLongName(oid);
}

/** Name → `C=AT,O=Example,CN=example.com` (certificate order; inverse of `parseRfc4514`). */
export function formatRfc4514(name: Name): string {
  return name
    .map(({ oid, value }) => {
      if (oid === OID_X500_UNIQUE_IDENTIFIER) {
        const bytes = Buffer.from(value, 'base64');
        return `${keyword(oid)}=${bytes.length ? '#' + bytes.toString('hex') : ''}`;
      }
      return `${keyword(oid)}=${escapeValue(value)}`;
    })
    .join(',');
}
