/**
 * ajv's errors → django-ninja's 422 items: `{type, loc, msg[, ctx]}` with pydantic's wording, pruned of
 * the summaries that only echo a more precise error, in field order.
 */
import type { ErrorObject } from 'ajv/dist/2020';
import type { Loc, ValidationItem } from '../http/http-errors';
import { escapePointer, pointerToLoc } from './loc';
import { loadSchemas, type JsonSchema } from './schemas';

const quote = (v: unknown): string => `'${String(v)}'`;

/** pydantic's list rendering: `'a', 'b' or 'c'`. */
function orList(values: unknown[]): string {
  const q = values.map(quote);
  return q.length <= 1 ? q.join('') : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`;
}

export function typeItem(expected: string, value: unknown): Pick<ValidationItem, 'type' | 'msg'> {
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

export function isObject(v: unknown): v is Record<string, unknown> {
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
export function inFieldOrder(items: ValidationItem[], prefix: Loc, fieldOrder: string[]): ValidationItem[] {
  const rank = (item: ValidationItem): number => {
    const i = fieldOrder.indexOf(String(item.loc[prefix.length]));
    return i === -1 ? fieldOrder.length : i;
  };
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => rank(a.item) - rank(b.item) || a.i - b.i)
    .map((x) => x.item);
}
