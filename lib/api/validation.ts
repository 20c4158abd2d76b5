/**
 * Request validation against schemas/*.json (JSON Schema 2020-12), with errors in django-ninja's 422
 * shape: `{type, loc, msg[, ctx]}`, `loc` starting with the source (`body` + parameter name, or
 * `query`), messages worded like pydantic's so that clients of the original see familiar text.
 *
 * The same schema files feed the OpenAPI document (lib/openapi/document.ts): one source of truth.
 * Schemas are compiled once per process (twice: see `ajv`).
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats';
import type { Loc, ValidationItem } from '../http/http-errors';
import { NO_BODY, type ParsedBody } from '../http/body';
import { findBadText, type BadText } from './bad-text';
import { pathToLoc } from './loc';
import { loadSchemas, SCHEMA_BASE, type JsonSchema } from './schemas';
import { inFieldOrder, isObject, toValidationItems, typeItem } from './validation-items';

/**
 * Two compilations of the same schemas. `fast` stops at the first error and decides whether a value
 * is valid; `full` collects every error for the 422 answer (pydantic lists them all). ajv's
 * all-errors mode costs time in the square of the errors when many `$ref`ed items fail (each call
 * copies the error list so far), so it only ever sees small values: see `MAX_FULLY_REPORTED_VALUES`.
 */
const ajvInstances = new Map<'fast' | 'full', Ajv2020>();

function ajv(mode: 'fast' | 'full'): Ajv2020 {
  const existing = ajvInstances.get(mode);
  if (existing) return existing;
  const instance = new Ajv2020({ allErrors: mode === 'full', discriminator: true, verbose: true, strict: true, allowUnionTypes: true });
  addFormats(instance);
  // RFC 3339 allows years 0000–9999, offsets included; a database timestamp starts at year 1 (and a
  // value such as `0000-01-01T00:00:00Z` would otherwise fail in the query, not here).
  const rfc3339 = fullFormats['date-time'] as { validate: (s: string) => boolean; compare: (a: string, b: string) => number | undefined };
  instance.addFormat('date-time', {
    type: 'string',
    validate: (s: string) => rfc3339.validate(s) && isStorableDate(new Date(s)),
    compare: rfc3339.compare,
  });
  // Annotations of ours: the message of a `const` rule, and the model name for "not an object".
  instance.addKeyword({ keyword: 'x-error', schemaType: 'string' });
  instance.addKeyword({ keyword: 'x-class-name', schemaType: 'string' });
  for (const schema of loadSchemas().values()) instance.addSchema(schema);
  ajvInstances.set(mode, instance);
  return instance;
}

/** Years 1–9999 in UTC: what every database and every certificate time (RFC 5280 §4.1.2.5) can hold. */
function isStorableDate(d: Date): boolean {
  const year = d.getUTCFullYear();
  return !Number.isNaN(year) && year >= 1 && year <= 9999;
}

const compiled = new Map<string, ValidateFunction>();

/** The validator of schema `name` (file `schemas/<name>.json`); `full` collects every error. */
export function validatorFor(name: string, mode: 'fast' | 'full' = 'fast'): ValidateFunction {
  const key = `${mode} ${name}`;
  let fn = compiled.get(key);
  if (!fn) {
    fn = ajv(mode).getSchema(`${SCHEMA_BASE}${name}.json`);
    if (!fn) throw new Error(`express-ca-api: no schema named ${name}`);
    compiled.set(key, fn);
  }
  return fn;
}

/** Compile every schema now, so that a broken schema fails at startup and not in a request. */
export function compileAll(): void {
  for (const name of loadSchemas().keys()) for (const mode of ['fast', 'full'] as const) validatorFor(name, mode);
}

/**
 * The most values (array items and object members, counted through every level) of an invalid body
 * whose every error is reported. A larger invalid body is answered with its first error only: the
 * same 422, bounded in time whatever the body holds (a 2.5 MB body holds a million array items).
 */
export const MAX_FULLY_REPORTED_VALUES = 1000;

/** Whether `value` holds more than `max` values at any depth; stops counting at `max + 1`. */
function holdsMoreValues(value: unknown, max: number): boolean {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    const children = Object.values(node);
    count += children.length;
    if (count > max) return true;
    for (const child of children) stack.push(child);
  }
  return false;
}

/**
 * `null` when `value` is valid for schema `name`, else ajv's errors: every one when the value is small
 * enough (`MAX_FULLY_REPORTED_VALUES`), else the first, which the fail-fast check has found already.
 */
function check(name: string, value: unknown): ErrorObject[] | null {
  const fast = validatorFor(name);
  if (fast(value)) return null;
  if (holdsMoreValues(value, MAX_FULLY_REPORTED_VALUES)) return fast.errors ?? [];
  const full = validatorFor(name, 'full');
  full(value);
  return full.errors ?? [];
}

// ---------------------------------------------------------------------------------------------------
// Bodies and query strings

function propertyNames(schemaName: string): string[] {
  const props = loadSchemas().get(schemaName)?.properties;
  return isObject(props) ? Object.keys(props) : [];
}

/** The 422 item of a string that cannot be input (see `BadText`). */
function badTextItem(bad: BadText, loc: Loc): ValidationItem {
  if (bad === 'surrogate') {
    return { type: 'string_unicode', loc, msg: 'Input should be a valid string, unable to parse raw data as a unicode string' };
  }
  // Django's wording (ProhibitNullCharactersValidator), as a custom validator's value_error.
  return { type: 'value_error', loc, msg: `Value error, ${NUL_MESSAGE}`, ctx: { error: NUL_MESSAGE } };
}

const NUL_MESSAGE = 'Null characters are not allowed.';

/**
 * Items for path parameters holding a NUL (docs/reference/differences.md D16), `loc` `["path", name]`: the router refuses
 * them after authentication and before the permission check, so that no lookup sees them.
 */
export function pathTextItems(params: Record<string, string>): ValidationItem[] {
  return Object.entries(params)
    .filter(([, value]) => value.includes('\u0000'))
    .map(([name]) => badTextItem('nul', ['path', name]));
}

/** Items for every bad string of a body (values and keys), in field order. */
function bodyTextItems(body: Record<string, unknown>, prefix: Loc, fieldOrder: string[]): ValidationItem[] {
  const items = findBadText(body).map(({ loc, bad }) => badTextItem(bad, [...prefix, ...pathToLoc(loc, body)]));
  return inFieldOrder(items, prefix, fieldOrder);
}

/**
 * Validate a parsed JSON body against `schemaName`. Returns the body or the 422 items.
 * `param` is the handler's parameter name that ninja puts in `loc[1]` (`data`, `revocation`).
 */
export function validateBody(
  schemaName: string,
  param: string,
  body: ParsedBody,
): { ok: true; value: Record<string, unknown> } | { ok: false; items: ValidationItem[] } {
  const prefix: Loc = ['body', param];
  if (body === NO_BODY) return { ok: false, items: [{ type: 'missing', loc: prefix, msg: 'Field required' }] };
  if (!isObject(body)) {
    const className = String(loadSchemas().get(schemaName)?.['x-class-name'] ?? schemaName);
    return {
      ok: false,
      items: [
        {
          type: 'model_type',
          loc: prefix,
          msg: `Input should be a valid dictionary or instance of ${className}`,
          ctx: { class_name: className },
        },
      ],
    };
  }
  // Strings no column or certificate can hold are refused first: nothing after this sees them.
  const badStrings = bodyTextItems(body, prefix, propertyNames(schemaName));
  if (badStrings.length) return { ok: false, items: badStrings };
  const errors = check(schemaName, body);
  if (!errors) return { ok: true, value: body };
  return { ok: false, items: toValidationItems(errors, body, prefix, propertyNames(schemaName)) };
}

const TRUE = new Set(['1', 'true', 't', 'yes', 'y', 'on']);
const FALSE = new Set(['0', 'false', 'f', 'no', 'n', 'off']);

/**
 * Coerce and validate query parameters declared by `schemaName`; unknown parameters are ignored and a
 * repeated parameter takes its last value (as upstream). Booleans accept pydantic's lax spellings. A
 * value holding a string that cannot be input (a lone surrogate, a NUL; any of its repetitions) is
 * refused before anything else: nothing after this sees it.
 */
export function validateQuery(
  schemaName: string,
  query: Record<string, unknown>,
): { ok: true; value: Record<string, unknown> } | { ok: false; items: ValidationItem[] } {
  const schema = loadSchemas().get(schemaName);
  const props = (isObject(schema?.properties) ? schema.properties : {}) as Record<string, JsonSchema>;
  const items: ValidationItem[] = [];
  for (const name of Object.keys(props)) {
    const bad = findBadText(query[name])[0]?.bad;
    if (bad) items.push(badTextItem(bad, ['query', name]));
  }
  if (items.length) return { ok: false, items };
  const value: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(props)) {
    let raw = query[name];
    if (raw === undefined) {
      if ('default' in prop) value[name] = prop.default;
      continue;
    }
    if (Array.isArray(raw)) raw = raw[raw.length - 1];
    if (typeof raw === 'object' && raw !== null) {
      // A host app's `query parser` may give objects (qs `a[b]=c`): no parameter takes one.
      const { type, msg } = typeItem(String(prop.type), raw);
      items.push({ type, loc: ['query', name], msg });
      continue;
    }
    const text = String(raw);
    if (prop.type === 'boolean') {
      const lower = text.toLowerCase();
      if (TRUE.has(lower)) value[name] = true;
      else if (FALSE.has(lower)) value[name] = false;
      else items.push({ type: 'bool_parsing', loc: ['query', name], msg: 'Input should be a valid boolean, unable to interpret input' });
    } else if (prop.type === 'integer') {
      if (/^[+-]?\d+$/.test(text.trim())) value[name] = Number(text.trim());
      else
        items.push({
          type: 'int_parsing',
          loc: ['query', name],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
        });
    } else value[name] = text;
  }
  if (items.length) return { ok: false, items };
  const errors = check(schemaName, value);
  if (!errors) return { ok: true, value };
  return { ok: false, items: toValidationItems(errors, value, ['query'], Object.keys(props)) };
}
