/**
 * fast-check arbitraries derived from the JSON Schemas in `schemas/` (the same files the API
 * validates requests with), for the hostile-input campaign.
 *
 * `fromSchema(name)` gives values that follow the schema — types, enums, consts, required keys,
 * unions, formats, lengths — with strings drawn from plausible API vocabulary (OIDs, aliases, host
 * names, URLs, IPs, e-mails, dates) so that a good share also passes the engine's semantic rules.
 * `hostileValue` gives what no schema allows; `mutate` plants one into a valid value at a random
 * place (the "almost valid" request).
 */
import fc from 'fast-check';
import { loadSchemas, type JsonSchema } from '../../lib/api/schemas';

const schemas = loadSchemas();

function resolve(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const target = schemas.get(ref.replace(/\.json$/, ''));
  if (!target) throw new Error(`campaign: unknown schema ${ref}`);
  return target;
}

/** Strings an API client might plausibly send: aliases, OIDs, names, URLs, addresses, dates. */
export const plausibleString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'CN',
    'O',
    'C',
    '2.5.4.3',
    '1.2.3',
    '1.3.6.1.5.5.7.3.1',
    'serverAuth',
    'clientAuth',
    'digital_signature',
    'key_encipherment',
    'ocsp',
    'ca_issuers',
    'ca_repository',
    'status_request',
    'AT',
    'example.com',
    '*.example.com',
    'xn--bcher-kva.example',
    'bücher.example',
    'http://example.com/crl',
    'https://ca.example.com/issuer.der',
    'example.com',
    '192.0.2.1',
    '2001:db8::1',
    '10.0.0.0/8',
    'user@example.com',
    'webserver',
    'client',
    'ocsp',
    'SHA-256',
    'SHA3/512',
    '2030-01-01T00:00:00Z',
    '',
  ),
  fc.domain(),
  fc.webUrl(),
  fc.emailAddress(),
  fc.ipV4(),
  fc.ipV6(),
  fc.string({ maxLength: 24 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
);

const dateTime: fc.Arbitrary<string> = fc.oneof(
  fc.date({ min: new Date('1950-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom(
    new Date(Date.now() + 30 * 86_400_000).toISOString(),
    new Date(Date.now() + 86_400_000).toISOString().replace('Z', '+02:00'),
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '2024-02-30T00:00:00Z',
    '2030-01-01T00:00:00',
    '2030-01-01',
    '+275760-09-13T00:00:00Z',
    '2030-01-01T24:00:00Z',
    '2030-01-01T00:00:60Z',
  ),
);

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  if (Array.isArray(schema.examples)) return fc.oneof(fc.constantFrom(...(schema.examples as string[])), plausibleString);
  if (schema.format === 'date-time') return dateTime;
  if (schema.pattern === '^[0-9A-Fa-f:]+$') return fc.stringMatching(/^[0-9A-F:]{1,40}$/);
  if (typeof schema.pattern === 'string') {
    try {
      return fc.oneof(fc.stringMatching(new RegExp(schema.pattern)), plausibleString);
    } catch {
      return plausibleString;
    }
  }
  return plausibleString;
}

function typeArbitrary(type: string, schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -5;
      const max = typeof schema.maximum === 'number' ? schema.maximum : 100_000;
      return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'string':
      return stringFor(schema);
    case 'array': {
      const items = isSchema(schema.items) ? schema.items : {};
      const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return fc.array(arbitrary(items, depth + 1), { minLength, maxLength: Math.max(minLength, depth > 3 ? 1 : 3) });
    }
    case 'object':
      return objectArbitrary(schema, depth);
    default:
      return fc.constant(null);
  }
}

function isSchema(v: unknown): v is JsonSchema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function objectArbitrary(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const props = (isSchema(schema.properties) ? schema.properties : {}) as Record<string, JsonSchema>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, prop] of Object.entries(props)) record[key] = arbitrary(prop, depth + 1);
  const thenBranches = ifThenBranches(schema);
  const base =
    Object.keys(record).length === 0
      ? fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean()), { maxKeys: 3 })
      : fc.record(record, { requiredKeys: required.filter((k) => k in record) });
  if (!thenBranches.length) return base;
  // `if type is X then value is ...` (GeneralName): generate the `then` shape for that tag.
  return fc.oneof(
    base,
    ...thenBranches.map(({ tag, tagValue, then }) =>
      fc.tuple(base, objectArbitrary({ type: 'object', properties: then, required: Object.keys(then) }, depth)).map(([b, t]) => ({
        ...(b as object),
        ...(t as object),
        [tag]: tagValue,
      })),
    ),
  );
}

function ifThenBranches(schema: JsonSchema): { tag: string; tagValue: unknown; then: Record<string, JsonSchema> }[] {
  const all = Array.isArray(schema.allOf) ? (schema.allOf as JsonSchema[]) : [];
  return all.flatMap((branch) => {
    const cond = branch.if as JsonSchema | undefined;
    const then = branch.then as JsonSchema | undefined;
    const condProps = (cond?.properties ?? {}) as Record<string, JsonSchema>;
    const [tag] = Object.keys(condProps);
    if (!tag || !then || !('const' in condProps[tag])) return [];
    return [{ tag, tagValue: condProps[tag].const, then: (then.properties ?? {}) as Record<string, JsonSchema> }];
  });
}

/** An arbitrary for values following `schema` (nesting is cut off past a few levels). */
export function arbitrary(input: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(input);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const union = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (Array.isArray(union)) {
    if (depth > 6) {
      const leaf = union.find((b) => resolve(b).type === 'null');
      if (leaf) return fc.constant(null);
    }
    return fc.oneof(...union.map((b) => fc.constant(b))).chain((b) => arbitrary(b, depth + 1));
  }
  if (depth > 8) return fc.constant(schema.type === 'array' ? [] : null);
  const type = schema.type;
  if (Array.isArray(type)) return fc.oneof(...(type as string[]).map((t) => typeArbitrary(t, schema, depth)));
  if (typeof type === 'string') return typeArbitrary(type, schema, depth);
  // No type (GeneralName.value): anything plausible.
  return fc.oneof(plausibleString, fc.constant(null), fc.integer());
}

export function fromSchema(name: string): fc.Arbitrary<unknown> {
  return arbitrary({ $ref: `${name}.json` });
}

// ---------------------------------------------------------------------------------------------------
// Hostile values and mutation

const deepArray = (depth: number): unknown => {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

/** Values no schema allows, or that stress a limit: wrong types, sizes, characters, numbers, dates. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    0,
    -1,
    1.5,
    -0,
    1e308,
    -1e308,
    2 ** 53 + 1,
    2 ** 31,
    2 ** 64,
    {},
    [],
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfff',
    '\ufeff',
    '\u202e',
    '%00',
    '../../etc/passwd',
    '..%2F..%2F',
    '$(reboot)',
    "'; DROP TABLE ca_api_orders; --",
    '{{7*7}}',
    '__proto__',
    '0.0',
    '1.2.840.113549.1.1.99999999999999999999999',
    '2.99999999999999999999.1',
    '-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999999999Z',
    '2024-13-45T99:99:99Z',
    '1e9999',
    'NaN',
    'Infinity',
    { __proto__: null, constructor: 'x' },
    { toString: 'x', valueOf: 1 },
  ),
  fc.constantFrom(1_000, 70_000).map((n) => 'A'.repeat(n)),
  fc.constantFrom(1_000, 10_000).map((n) => Array.from({ length: n }, (_, i) => i)),
  fc.constantFrom(20, 63, 70).map(deepArray),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }),
  fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 8 }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((b) => Number(b)),
  fc.object({ maxDepth: 3, maxKeys: 4 }),
);

/** Every (parent, key) slot of a JSON value, root excluded. */
function slots(value: unknown): { parent: Record<string, unknown> | unknown[]; key: string | number }[] {
  const found: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const stack: unknown[] = [value];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) node.forEach((v, i) => (found.push({ parent: node, key: i }), stack.push(v)));
    else if (typeof node === 'object' && node !== null) {
      for (const [k, v] of Object.entries(node)) {
        found.push({ parent: node as Record<string, unknown>, key: k });
        stack.push(v);
      }
    }
  }
  return found;
}

/**
 * One mutation of a valid value at a random slot: replaced by a hostile value, removed, or, for
 * objects, joined by an unexpected key. The value is copied first.
 */
export function mutate(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(valid, fc.nat(), fc.constantFrom('replace', 'remove', 'add'), hostileValue, fc.string({ maxLength: 6 }))
    .map(([v, n, how, hostile, newKey]) => {
      const copy = structuredClone(v) as unknown;
      const all = slots(copy);
      if (all.length === 0) return hostile;
      const { parent, key } = all[n % all.length];
      if (how === 'remove') {
        if (Array.isArray(parent)) parent.splice(Number(key), 1);
        else delete parent[key as string];
      } else if (how === 'add' && !Array.isArray(parent)) parent[newKey] = hostile;
      else (parent as Record<string | number, unknown>)[key] = hostile;
      return copy;
    });
}
