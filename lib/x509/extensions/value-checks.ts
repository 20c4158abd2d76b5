/**
 * Small validators shared by the extension codecs' `parse` functions.
 *
 * They mirror the pydantic error types and messages the reference emits (`list_type`, `missing`,
 * `int_type`, `greater_than_equal`, `literal_error`, and django-ca's `value_error` messages such as
 * "value must not be empty"), so that the API layer can render a 422 item from an issue unchanged
 * (it adds the "Value error, " prefix for `value_error`). Every `loc` is relative to the checked value.
 */
import { invalid, collectIssues, atLoc, parseError } from '../errors';
import { isValidOid } from '../oids';

export type JsonObject = Record<string, unknown>;

export function isObject(input: unknown): input is JsonObject {
  return typeof input === 'object' && input !== null && !Array.isArray(input);
}

export function requireObject(input: unknown): JsonObject {
  if (input === undefined) throw invalid('Field required', [], 'missing');
  if (!isObject(input)) throw invalid('Input should be a valid dictionary', [], 'dict_type');
  return input;
}

export function requireList(input: unknown): unknown[] {
  if (input === undefined) throw invalid('Field required', [], 'missing');
  if (!Array.isArray(input)) throw invalid('Input should be a valid list', [], 'list_type');
  return input;
}

export function requireString(input: unknown): string {
  if (input === undefined) throw invalid('Field required', [], 'missing');
  if (typeof input !== 'string') throw invalid('Input should be a valid string', [], 'string_type');
  return input;
}

export function requireBool(input: unknown): boolean {
  if (input === undefined) throw invalid('Field required', [], 'missing');
  if (typeof input !== 'boolean') throw invalid('Input should be a valid boolean', [], 'bool_type');
  return input;
}

/** A JSON integer (a float with no fraction counts, as in pydantic); `min` gives `greater_than_equal`. */
export function requireInt(input: unknown, min?: number): number {
  if (input === undefined) throw invalid('Field required', [], 'missing');
  if (typeof input !== 'number' || !Number.isFinite(input)) {
    throw invalid('Input should be a valid integer', [], 'int_type');
  }
  if (!Number.isInteger(input)) {
    throw invalid('Input should be a valid integer, got a number with a fractional part', [], 'int_from_float');
  }
  if (!Number.isSafeInteger(input)) throw invalid('Input should be a valid integer', [], 'int_type');
  if (min !== undefined && input < min) {
    throw invalid(`Input should be greater than or equal to ${min}`, [], 'greater_than_equal');
  }
  return input;
}

/** `null` or a value checked by `check`; a missing key counts as `null` only when `optional`. */
export function nullable<T>(input: unknown, check: (v: unknown) => T, optional = true): T | null {
  if (input === null) return null;
  if (input === undefined && optional) return null;
  return check(input);
}

/** Run the check for `obj[key]` with issues located under `key`. */
export function field<T>(obj: JsonObject, key: string, check: (v: unknown) => T): T {
  return atLoc([key], () => check(obj[key]));
}

export function requireOid(input: unknown): string {
  const text = requireString(input);
  if (!isValidOid(text)) throw invalid(`${text}: Invalid object identifier`);
  return text;
}

/** pydantic's message for a Literal: `Input should be 'a', 'b' or 'c'`. */
export function literalMessage(allowed: readonly string[]): string {
  const quoted = allowed.map((a) => `'${a}'`);
  return `Input should be ${quoted.length > 1 ? quoted.slice(0, -1).join(', ') + ' or ' + quoted[quoted.length - 1] : quoted[0]}`;
}

export function requireLiteral<T extends string>(input: unknown, allowed: readonly T[]): T {
  if (typeof input !== 'string' || !(allowed as readonly string[]).includes(input)) {
    throw invalid(literalMessage(allowed), [], 'literal_error');
  }
  return input as T;
}

/**
 * Parse every item (issues located at the item's index, all items reported together), then apply
 * django-ca's NonEmptyOrderedSet rules: unique first, then non-empty. `label` renders an item for the
 * "<item>: value must be unique" message.
 */
export function parseNonEmptySet<T>(
  input: unknown,
  item: (v: unknown) => T,
  label: (v: T) => string = (v) => (typeof v === 'string' ? v : JSON.stringify(v)),
): T[] {
  const list = requireList(input);
  const out: T[] = new Array(list.length);
  collectIssues(list.map((v, i) => () => void (out[i] = atLoc([i], () => item(v)))));
  const seen = new Set<string>();
  for (const v of out) {
    const key = JSON.stringify(v);
    if (seen.has(key)) throw invalid(`${label(v)}: value must be unique`);
    seen.add(key);
  }
  if (out.length === 0) throw invalid('value must not be empty');
  return out;
}

/** Strict standard base64 (RFC 4648 alphabet, padded), as Python's b64decode accepts after padding. */
export function requireBase64(input: unknown): Buffer {
  const text = requireString(input);
  const compact = text.replace(/[\r\n]/g, '');
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact)) {
    throw invalid(`${text}: Not a valid base64 string`);
  }
  return Buffer.from(compact, 'base64');
}

/** Decoding helper: a non-negative INTEGER that fits a JS number exactly; anything else is not representable. */
export function readSmallNonNegative(value: bigint, what: string): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) throw parseError(`${what}: out of range`);
  return Number(value);
}
