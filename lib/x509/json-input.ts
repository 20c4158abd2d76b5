/**
 * The one vocabulary for reading untrusted API JSON: the extension codecs' `parse` functions and the
 * GeneralName list rules use it.
 *
 * Each reader reports a problem the way the reference API's pydantic models do — the same error
 * `type`, the same message, a `loc` relative to the value read — so that the API layer can render a
 * 422 item from an issue unchanged (it adds the "Value error, " prefix for `value_error`). Readers
 * throw a single `X509Error('validation')`; `collectIssues`/`atLoc` (errors.ts) combine and place them.
 *
 * Two kinds of function:
 *   - readers (`require*`) check one value's type and rules. They do not treat an absent value
 *     (`undefined`) specially: absence is the business of whoever looks the value up — `field` for an
 *     object's keys, `present` for a codec's whole value.
 *   - combinators (`field`, `parseModel`, `nullable`, `parseEach`, `parseNonEmptySet`, ...) put
 *     readers together and locate their issues.
 */
import { atLoc, collectIssues, invalid } from './errors';
import { literalList } from './error-text';
import { isValidOid } from './oids';
import { isPlainObject } from './plain-object';
import { toApiInteger } from './api-integer';

export type JsonObject = Record<string, unknown>;
export type Reader<T> = (raw: unknown) => T;

// ---------------------------------------------------------------------------------------------------
// Presence

/** pydantic's `missing` for an absent value (a codec's `value` left out of the envelope), else the value. */
export function present(input: unknown): unknown {
  if (input === undefined) throw invalid('Field required', [], 'missing');
  return input;
}

/**
 * Read `obj[key]` with `read`, issues located under `key`. An absent required field is `missing`;
 * an absent optional field is read as null (the default of every optional field of the reference models).
 */
export function field<T>(obj: JsonObject, key: string, read: Reader<T>, presence: 'required' | 'optional' = 'required'): T {
  return atLoc([key], () => {
    const raw = obj[key];
    if (raw !== undefined) return read(raw);
    if (presence === 'required') throw invalid('Field required', [], 'missing');
    return read(null);
  });
}

/**
 * Read the fields of a model in declaration order (which is also the output key order), collecting the
 * problems of all fields into one error as pydantic does. Keys not in `requiredKeys` are optional.
 */
export function parseModel<T extends object>(
  model: JsonObject,
  fields: { [K in keyof T]: Reader<T[K]> },
  requiredKeys: readonly (keyof T & string)[] = [],
): T {
  const out = {} as T;
  collectIssues(
    (Object.keys(fields) as (keyof T & string)[]).map((key) => () => {
      out[key] = field(model, key, fields[key], requiredKeys.includes(key) ? 'required' : 'optional');
    }),
  );
  return out;
}

/** A nullable value: null stays null, anything else goes through `read`. */
export function nullable<T>(read: Reader<T>): Reader<T | null> {
  return (raw) => (raw === null ? null : read(raw));
}

// ---------------------------------------------------------------------------------------------------
// Objects and lists

/**
 * A JSON object. With `model` (the reference's pydantic class name) the value stands for a model
 * (`model_type`), without it for a plain dict field (`dict_type`).
 */
export function requireObject(input: unknown, model?: string): JsonObject {
  if (isPlainObject(input)) return input;
  if (model !== undefined) throw invalid(`Input should be a valid dictionary or instance of ${model}`, [], 'model_type');
  throw invalid('Input should be a valid dictionary', [], 'dict_type');
}

export function requireList(input: unknown): unknown[] {
  if (!Array.isArray(input)) throw invalid('Input should be a valid list', [], 'list_type');
  return input;
}

/** `MinLen(n)` on a list. */
export function requireMinLength<T>(list: T[], min: number): T[] {
  if (list.length < min) {
    const msg = `List should have at least ${min} item${min === 1 ? '' : 's'} after validation, not ${list.length}`;
    throw invalid(msg, [], 'too_short');
  }
  return list;
}

/** Read every item of a list, collecting the problems of all items (loc prefixed with the index). */
export function parseEach<T>(list: unknown[], read: Reader<T>): T[] {
  const out: T[] = [];
  collectIssues(list.map((item, i) => () => void (out[i] = atLoc([i], () => read(item)))));
  return out;
}

/** A stable identity for JSON-like values (bigints included), used for uniqueness checks. */
export function canonicalKey(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

/**
 * django-ca's `NonEmptyOrderedSet` rules on a parsed list: unique first (by `key`, the duplicate shown
 * by `repr` in "<item>: value must be unique"), then non-empty, in the reference's order.
 */
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

/** A list read item by item, then held to the `NonEmptyOrderedSet` rules (items compared as JSON). */
export function parseNonEmptySet<T>(
  input: unknown,
  read: Reader<T>,
  repr: (item: T) => string = (v) => (typeof v === 'string' ? v : JSON.stringify(v)),
): T[] {
  return checkNonEmptyUnique(parseEach(requireList(input), read), canonicalKey, repr);
}

// ---------------------------------------------------------------------------------------------------
// Scalars

export function requireBool(input: unknown): boolean {
  if (typeof input !== 'boolean') throw invalid('Input should be a valid boolean', [], 'bool_type');
  return input;
}

/** A JSON string (pydantic's `string_type`); see `requireText` for strings a certificate must hold. */
export function requireString(input: unknown): string {
  if (typeof input !== 'string') throw invalid('Input should be a valid string', [], 'string_type');
  return input;
}

/**
 * A string that can be written as UTF-8 (a lone UTF-16 surrogate cannot: docs/reference/differences.md D16), at most
 * `maxLength` code points long when given (pydantic counts code points, not UTF-16 units).
 */
export function requireText(input: unknown, maxLength?: number): string {
  const text = requireString(input);
  if (/[\uD800-\uDFFF]/u.test(text)) {
    throw invalid('Input should be a valid string, unable to parse raw data as a unicode string', [], 'string_unicode');
  }
  if (maxLength !== undefined && [...text].length > maxLength) {
    throw invalid(`String should have at most ${maxLength} characters`, [], 'string_too_long');
  }
  return text;
}

/** A dotted OID. (Models whose field is a plain `str` check `requireText` first: `requireOid(requireText(v))`.) */
export function requireOid(input: unknown): string {
  const text = requireString(input);
  if (!isValidOid(text)) throw invalid(`${text}: Invalid object identifier`);
  return text;
}

/** One of `allowed`, with pydantic's Literal message. */
export function requireLiteral<T extends string>(input: unknown, allowed: readonly T[]): T {
  if (typeof input !== 'string' || !(allowed as readonly string[]).includes(input)) {
    throw invalid(`Input should be ${literalList(allowed)}`, [], 'literal_error');
  }
  return input as T;
}

/**
 * A JSON integer that is a safe JS number (a float with no fraction counts, as in pydantic);
 * `min` gives `greater_than_equal`. See `requireLaxInteger` for integers of any size.
 */
export function requireInt(input: unknown, min?: number): number {
  if (typeof input !== 'number' || !Number.isFinite(input)) throw invalid('Input should be a valid integer', [], 'int_type');
  if (!Number.isInteger(input)) {
    throw invalid('Input should be a valid integer, got a number with a fractional part', [], 'int_from_float');
  }
  if (!Number.isSafeInteger(input)) throw invalid('Input should be a valid integer', [], 'int_type');
  if (min !== undefined && input < min) {
    throw invalid(`Input should be greater than or equal to ${min}`, [], 'greater_than_equal');
  }
  return input;
}

/**
 * An integer of any size as pydantic's lax `int` accepts it from JSON (also a decimal string, with `_`
 * separators); a number when it is exact, else a bigint.
 */
export function requireLaxInteger(input: unknown): number | bigint {
  let v: bigint;
  if (typeof input === 'bigint') v = input;
  else if (typeof input === 'number' && Number.isFinite(input)) {
    if (!Number.isInteger(input)) {
      throw invalid('Input should be a valid integer, got a number with a fractional part', [], 'int_from_float');
    }
    v = BigInt(input);
  } else if (typeof input === 'string' && /^\s*[+-]?\d+(_\d+)*\s*$/.test(input)) {
    v = BigInt(input.trim().replace(/_/g, ''));
  } else if (typeof input === 'string') {
    throw invalid('Input should be a valid integer, unable to parse string as an integer', [], 'int_parsing');
  } else {
    throw invalid('Input should be a valid integer', [], 'int_type');
  }
  return toApiInteger(v);
}

/**
 * Base64 bytes, strictly (RFC 4648 §4 alphabet, padded; line breaks ignored), as the reference's
 * `Base64EncodedBytes` fields accept them. See `requireLaxBase64` for the lenient rule.
 */
export function requireBase64(input: unknown): Buffer {
  const text = requireString(input);
  const compact = text.replace(/[\r\n]/g, '');
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact)) {
    throw invalid(`${text}: Not a valid base64 string`);
  }
  return Buffer.from(compact, 'base64');
}

/**
 * Base64 as Python's non-strict `base64.b64decode` accepts it (characters outside the alphabet are
 * skipped, padding must be complete), for the fields the reference decodes that way. Returns the
 * canonical form so that the value survives encode → decode unchanged.
 */
export function requireLaxBase64(input: unknown): string {
  const s = requireText(input);
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
