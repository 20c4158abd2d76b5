/**
 * Request validation against schemas/*.json (JSON Schema 2020-12), with errors in django-ninja's 422
 * shape: `{type, loc, msg[, ctx]}`, `loc` starting with the source (`body` + parameter name, or
 * `query`), messages worded like pydantic's so that clients of the original see familiar text.
 *
 * The same schema files feed the OpenAPI document (lib/openapi/document.ts): one source of truth.
 * Schemas are compiled once per process (twice: see `ajv`).
 */
import * as fs from 'fs';
import * as path from 'path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats';
import type { Loc, ValidationItem } from '../http/http-errors';
import { NO_BODY, type ParsedBody } from '../http/body';
import { findBadText, type BadText } from './bad-text';
import { escapePointer, pathToLoc, pointerToLoc } from './loc';

export const SCHEMA_BASE = 'https://express-ca-api.dev/schemas/';

export type JsonSchema = Record<string, unknown>;

/** `schemas/` of the package, both from source (lib/api) and from the build (dist/lib/api). */
export function schemaDir(): string {
  for (const candidate of ['../../schemas', '../../../schemas']) {
    const dir = path.resolve(__dirname, candidate);
    if (fs.existsSync(path.join(dir, 'SignCertificate.json'))) return dir;
  }
  throw new Error(`express-ca-api: cannot find the schemas/ directory near ${__dirname}`);
}

let loaded: Map<string, JsonSchema> | null = null;

/** Every schema file by name (`SignCertificate`), parsed. Read once. */
export function loadSchemas(): Map<string, JsonSchema> {
  if (loaded) return loaded;
  const dir = schemaDir();
  const map = new Map<string, JsonSchema>();
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    map.set(file.slice(0, -5), JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as JsonSchema);
  }
  loaded = map;
  return map;
}

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

/** ajv's errors for an invalid `value`: every one when the value is small enough, else the first. */
function errorsOf(name: string, value: unknown): ErrorObject[] {
  const mode = holdsMoreValues(value, MAX_FULLY_REPORTED_VALUES) ? 'fast' : 'full';
  const validate = validatorFor(name, mode);
  validate(value);
  return validate.errors ?? [];
}

/** `null` when `value` is valid for schema `name`, else its errors (see `errorsOf`). */
function check(name: string, value: unknown): ErrorObject[] | null {
  return validatorFor(name)(value) ? null : errorsOf(name, value);
}

// ---------------------------------------------------------------------------------------------------
// ajv errors → 422 items

const quote = (v: unknown): string => `'${String(v)}'`;

/** pydantic's list rendering: `'a', 'b' or 'c'`. */
function orList(values: unknown[]): string {
  const q = values.map(quote);
  return q.length <= 1 ? q.join('') : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`;
}

function typeItem(expected: string, value: unknown): Pick<ValidationItem, 'type' | 'msg'> {
  switch (expected) {
    case 'string':
      return { type: 'string_type', msg: 'Input should be a valid string' };
    case 'integer':
      return typeof value === 'number'
        ? { type: 'int_from_float', msg: 'Input should be a valid integer, got a number with a fractional part' }
        : { type: 'int_type', msg: 'Input should be a valid integer' };
    case 'number':
      return { type: 'float_type', msg: 'Input should be a valid number' };
    case 'boolean':
      return { type: 'bool_type', msg: 'Input should be a valid boolean' };
    case 'array':
      return { type: 'list_type', msg: 'Input should be a valid list' };
    case 'object':
      return { type: 'dict_type', msg: 'Input should be a valid dictionary' };
    case 'null':
      return { type: 'none_required', msg: 'Input should be None' };
    default:
      return { type: 'value_error', msg: `Input should be of type ${expected}` };
  }
}

function valueError(message: string): Pick<ValidationItem, 'type' | 'msg' | 'ctx'> {
  return { type: 'value_error', msg: `Value error, ${message}`, ctx: { error: message } };
}

/** One ajv error → the type/msg/ctx part of a 422 item (loc is computed separately). */
function describe(e: ErrorObject): Pick<ValidationItem, 'type' | 'msg' | 'ctx'> | null {
  const p = e.params as Record<string, unknown>;
  const parent = (e.parentSchema ?? {}) as JsonSchema;
  switch (e.keyword) {
    case 'required':
      return { type: 'missing', msg: 'Field required' };
    case 'type': {
      const expected =
        String(p.type)
          .split(',')
          .find((t) => t !== 'null') ?? String(p.type);
      return typeItem(expected, e.data);
    }
    case 'enum': {
      const values = (p.allowedValues as unknown[]).filter((v) => v !== null);
      return { type: 'literal_error', msg: `Input should be ${orList(values)}`, ctx: { expected: orList(values) } };
    }
    case 'const':
      if (typeof parent['x-error'] === 'string') return valueError(parent['x-error']);
      return { type: 'literal_error', msg: `Input should be ${quote(p.allowedValue)}`, ctx: { expected: quote(p.allowedValue) } };
    case 'maxLength':
      return { type: 'string_too_long', msg: `String should have at most ${String(p.limit)} characters`, ctx: { max_length: p.limit } };
    case 'minLength':
      return { type: 'string_too_short', msg: `String should have at least ${String(p.limit)} characters`, ctx: { min_length: p.limit } };
    case 'minItems':
      if (p.limit === 1) return valueError('value must not be empty');
      return { type: 'too_short', msg: `List should have at least ${String(p.limit)} items`, ctx: { min_length: p.limit } };
    case 'maxItems':
      return { type: 'too_long', msg: `List should have at most ${String(p.limit)} items`, ctx: { max_length: p.limit } };
    case 'minimum':
      return { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${String(p.limit)}`, ctx: { ge: p.limit } };
    case 'maximum':
      return { type: 'less_than_equal', msg: `Input should be less than or equal to ${String(p.limit)}`, ctx: { le: p.limit } };
    case 'pattern':
      return { type: 'string_pattern_mismatch', msg: `String should match pattern '${String(p.pattern)}'`, ctx: { pattern: p.pattern } };
    case 'format':
      if (p.format === 'date-time') {
        return { type: 'datetime_parsing', msg: 'Input should be a valid datetime in RFC 3339 format, with a timezone' };
      }
      return valueError(`value is not a valid ${String(p.format)}`);
    case 'discriminator': {
      const tag = String(p.tag);
      if (p.error === 'tag') {
        return {
          type: 'union_tag_not_found',
          msg: `Unable to extract tag using discriminator '${tag}'`,
          ctx: { discriminator: `'${tag}'` },
        };
      }
      const expected = discriminatorTags(parent);
      return {
        type: 'union_tag_invalid',
        msg: `Input tag '${String(p.tagValue)}' found using '${tag}' does not match any of the expected tags: ${expected.map(quote).join(', ')}`,
        ctx: { discriminator: `'${tag}'`, tag: String(p.tagValue), expected_tags: expected.map(quote).join(', ') },
      };
    }
    case 'if':
      return null; // the failing `then` branch reports the real problem
    default:
      return valueError(e.message ?? 'invalid value');
  }
}

/** The `type` constants of a discriminated `oneOf` (for the "expected tags" message). */
function discriminatorTags(schema: JsonSchema): string[] {
  const tags: string[] = [];
  for (const branch of (schema.oneOf as JsonSchema[] | undefined) ?? []) {
    const ref = branch.$ref as string | undefined;
    const target = ref ? loadSchemas().get(ref.replace(/\.json$/, '')) : branch;
    const props = (target?.properties ?? {}) as Record<string, JsonSchema>;
    if (props.type && 'const' in props.type) tags.push(String(props.type.const));
  }
  return tags;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Drop errors that only echo a more precise one: "must match a schema in anyOf" / "must be null"
 * of a nullable field whose non-null branch failed in detail.
 */
function prune(errors: ErrorObject[]): ErrorObject[] {
  const isSummary = (e: ErrorObject): boolean =>
    e.keyword === 'anyOf' ||
    e.keyword === 'oneOf' ||
    e.keyword === 'if' ||
    (e.keyword === 'type' && (e.params as { type?: string }).type === 'null');
  // A missing discriminator is reported once, as union_tag_not_found, not also as a missing field.
  const missingTags = new Set(
    errors.filter((e) => e.keyword === 'discriminator').map((t) => `${t.instancePath}\u0000${String((t.params as { tag?: string }).tag)}`),
  );
  const isMissingTag = (e: ErrorObject): boolean =>
    e.keyword === 'required' &&
    missingTags.has(`${e.instancePath}\u0000${String((e.params as { missingProperty?: string }).missingProperty)}`);
  // Every path at or above a detailed error, so that each summary is judged in one lookup: a body
  // with thousands of failing array items must not cost thousands × thousands comparisons.
  const detailed = new Set<string>();
  for (const o of errors) if (!isSummary(o)) for (const path of selfAndAncestors(o.instancePath)) detailed.add(path);
  return errors.filter((e) => !isMissingTag(e) && (!isSummary(e) || !detailed.has(e.instancePath)));
}

/** `/a/b/c` → `/a/b/c`, `/a/b`, `/a`, `` (JSON Pointers; the empty one is the root). */
function selfAndAncestors(pointer: string): string[] {
  const paths = [pointer];
  for (let i = pointer.lastIndexOf('/'); i >= 0; i = pointer.lastIndexOf('/', i - 1)) {
    paths.push(pointer.slice(0, i));
    if (i === 0) break;
  }
  return paths;
}

/** Convert ajv's errors for `data` into 422 items, loc prefixed with `prefix`, in field order. */
export function toValidationItems(errors: ErrorObject[], data: unknown, prefix: Loc, fieldOrder: string[] = []): ValidationItem[] {
  const items: ValidationItem[] = [];
  const seen = new Set<string>();
  for (const e of prune(errors)) {
    const d = describe(e);
    if (!d) continue;
    // A missing field is a problem inside its object: for an extension, after its tag.
    const pointer =
      e.keyword === 'required'
        ? `${e.instancePath}/${escapePointer(String((e.params as { missingProperty: string }).missingProperty))}`
        : e.instancePath;
    const loc = [...prefix, ...pointerToLoc(pointer, data)];
    const key = JSON.stringify([loc, d.type]);
    if (seen.has(key)) continue;
    seen.add(key);
    items.push({ type: d.type, loc, msg: d.msg, ...(d.ctx ? { ctx: d.ctx } : {}) });
  }
  return inFieldOrder(items, prefix, fieldOrder);
}

/** `items` sorted by the position of their field (the loc element after `prefix`) in `fieldOrder`; stable. */
function inFieldOrder(items: ValidationItem[], prefix: Loc, fieldOrder: string[]): ValidationItem[] {
  const rank = (item: ValidationItem): number => {
    const i = fieldOrder.indexOf(String(item.loc[prefix.length]));
    return i === -1 ? fieldOrder.length : i;
  };
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => rank(a.item) - rank(b.item) || a.i - b.i)
    .map((x) => x.item);
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
 * Items for path parameters holding a NUL (README D16), `loc` `["path", name]`: the router refuses
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
