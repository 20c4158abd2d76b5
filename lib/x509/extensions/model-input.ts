/**
 * Readers for untrusted API input that report problems the way the reference API (pydantic models)
 * does: the same error `type`, the same message, and a `loc` relative to the value being read.
 *
 * Used by the extension codecs whose values are nested objects (access descriptions, distribution
 * points, name constraints, authority key identifier, admissions). Each reader throws a single
 * `X509Error('validation')`; `collectIssues`/`atLoc` from errors.ts combine and place them.
 */
import { X509Error, atLoc, collectIssues, invalid } from '../errors';
import { isValidOid } from '../oids';
import type { GeneralName, Name } from '../types';

export type Loc = (string | number)[];
export type Model = Record<string, unknown>;

export function typeError(type: string, msg: string, loc: Loc = []): X509Error {
  return invalid(msg, loc, type);
}

/** A JSON object standing for a pydantic model called `className`. */
export function expectModel(input: unknown, className: string): Model {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw typeError('model_type', `Input should be a valid dictionary or instance of ${className}`);
  }
  return input as Model;
}

export function expectList(input: unknown): unknown[] {
  if (!Array.isArray(input)) throw typeError('list_type', 'Input should be a valid list');
  return input;
}

/** A required field: absent → pydantic's `missing` at the field's loc. */
export function required(model: Model, key: string): unknown {
  if (!(key in model) || model[key] === undefined) throw typeError('missing', 'Field required', [key]);
  return model[key];
}

/** An optional field that defaults to null. */
export function optional(model: Model, key: string): unknown {
  const v = model[key];
  return v === undefined ? null : v;
}

export function expectString(input: unknown, maxLength?: number): string {
  if (typeof input !== 'string') throw typeError('string_type', 'Input should be a valid string');
  // A lone UTF-16 surrogate cannot be written as UTF-8 (contract D16).
  if (/[\uD800-\uDFFF]/u.test(input)) {
    throw typeError('string_unicode', 'Input should be a valid string, unable to parse raw data as a unicode string');
  }
  // pydantic counts code points, not UTF-16 units.
  if (maxLength !== undefined && [...input].length > maxLength) {
    throw typeError('string_too_long', `String should have at most ${maxLength} characters`);
  }
  return input;
}

/**
 * Read the fields of a model in declaration order (which is also the output key order), collecting the
 * problems of all fields into one error as pydantic does. Absent optional fields arrive as null.
 */
export function parseModel<T extends object>(
  model: Model,
  fields: { [K in keyof T]: (raw: unknown) => T[K] },
  requiredKeys: readonly (keyof T & string)[] = [],
): T {
  const out = {} as T;
  collectIssues(
    (Object.keys(fields) as (keyof T & string)[]).map((key) => () => {
      const raw = requiredKeys.includes(key) ? required(model, key) : optional(model, key);
      out[key] = atLoc([key], () => fields[key](raw));
    }),
  );
  return out;
}

/** Read every item of a list, collecting the problems of all items (loc prefixed with the index). */
export function parseEach<T>(list: unknown[], parseItem: (item: unknown) => T): T[] {
  const out: T[] = [];
  collectIssues(list.map((item, i) => () => void (out[i] = atLoc([i], () => parseItem(item)))));
  return out;
}

/** A nullable field: null stays null, anything else goes through `parse`. */
export function nullable<T>(parse: (raw: unknown) => T): (raw: unknown) => T | null {
  return (raw) => (raw === null ? null : parse(raw));
}

/** `MinLen(n)` on a list. */
export function expectMinLength<T>(list: T[], min: number): T[] {
  if (list.length < min) {
    throw typeError(
      'too_short',
      `List should have at least ${min} item${min === 1 ? '' : 's'} after validation, not ${list.length}`,
    );
  }
  return list;
}

export function parseOid(input: unknown): string {
  const s = expectString(input);
  if (!isValidOid(s)) throw invalid(`${s}: Invalid object identifier`);
  return s;
}

/**
 * A base64 string as Python's non-strict `base64.b64decode` accepts it (characters outside the alphabet
 * are skipped, padding must be complete). Returns the canonical form so that the value survives
 * encode → decode unchanged.
 */
export function parseBase64(input: unknown): string {
  const s = expectString(input);
  const fail = () => invalid(`${s}: Not a valid base64 string`);
  const filtered = s.replace(/[^A-Za-z0-9+/=]/g, '');
  const firstPad = filtered.indexOf('=');
  const data = firstPad === -1 ? filtered : filtered.slice(0, firstPad);
  const padding = firstPad === -1 ? '' : filtered.slice(firstPad);
  if (data.length % 4 === 1) throw fail();
  const needed = (4 - (data.length % 4)) % 4;
  if (!/^=*$/.test(padding) || padding.length < needed) throw fail();
  return Buffer.from(data, 'base64').toString('base64');
}

/** An integer as pydantic's lax `int` accepts it from JSON; a number when exact, else a bigint. */
export function parseInteger(input: unknown): number | bigint {
  let v: bigint;
  if (typeof input === 'bigint') v = input;
  else if (typeof input === 'number' && Number.isFinite(input)) {
    if (!Number.isInteger(input)) {
      throw typeError('int_from_float', 'Input should be a valid integer, got a number with a fractional part');
    }
    v = BigInt(input);
  } else if (typeof input === 'string' && /^\s*[+-]?\d+(_\d+)*\s*$/.test(input)) {
    v = BigInt(input.trim().replace(/_/g, ''));
  } else if (typeof input === 'string') {
    throw typeError('int_parsing', 'Input should be a valid integer, unable to parse string as an integer');
  } else {
    throw typeError('int_type', 'Input should be a valid integer');
  }
  return toApiInteger(v);
}

export function toApiInteger(v: bigint): number | bigint {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

/** `NonEmptyOrderedSet`: uniqueness first (by `key`), then non-emptiness, as the reference validates. */
export function checkNonEmptyUnique<T>(list: T[], key: (item: T) => string, repr: (item: T) => string): T[] {
  const seen = new Set<string>();
  for (const item of list) {
    const k = key(item);
    if (seen.has(k)) throw invalid(`${repr(item)}: value must be unique`);
    seen.add(k);
  }
  if (list.length === 0) throw invalid('value must not be empty');
  return list;
}

/** A stable identity for JSON-like values (bigints included), used for uniqueness checks. */
export function canonicalKey(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

// ---------------------------------------------------------------------------------------------------
// Python `repr` of models: the reference's uniqueness message starts with `str(item)` of a pydantic model.

export function pyStr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += '\\' + quote;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0');
    else out += ch;
  }
  return quote + out + quote;
}

export function pyValue(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return pyStr(v);
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) return '[' + v.map(pyValue).join(', ') + ']';
  return String(v);
}

export function pyName(name: Name): string {
  const attrs = name.map((a) => `NameAttributeModel(oid=${pyStr(a.oid)}, value=${pyStr(a.value)})`);
  return `NameModel(root=[${attrs.join(', ')}])`;
}

export function pyGeneralName(gn: GeneralName): string {
  let value: string;
  if (gn.type === 'dirName') value = pyName(gn.value);
  else if (gn.type === 'otherName') {
    const o = gn.value;
    value = `OtherNameModel(oid=${pyStr(o.oid)}, type=${pyStr(o.type)}, value=${pyValue(o.value)})`;
  } else value = pyStr(gn.value);
  return `GeneralNameModel(type=${pyStr(gn.type)}, value=${value})`;
}

export function pyGeneralNames(list: GeneralName[] | null): string {
  return list === null ? 'None' : '[' + list.map(pyGeneralName).join(', ') + ']';
}
