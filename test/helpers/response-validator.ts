/**
 * Test-side response validation ("every response in the test suite validates against the schema the
 * document declares for it").
 *
 * `checkResponse` finds the operation of the OpenAPI document (built by the same
 * `buildOpenApiDocument` the API serves, with `/` as API root) for a request, the response declared
 * for the status (or `default`), and validates the JSON body against its schema with ajv (2020-12;
 * `#/components/schemas/...` refs resolve inside the document). An undeclared status is a violation.
 *
 * Out of scope, and reported as `skipped` with the reason: responses outside the API root (the host
 * app's), the public docs / assets / openapi.json, non-JSON bodies, and requests for which the
 * document has no operation at all (unknown path or method: their 404/405/301/308 cannot be declared
 * in an OpenAPI document, which only describes operations that exist).
 *
 * `observeResponse` wraps one response's `write`/`end` to capture what is sent; `recordResponses`
 * collects violations per test file and makes the test during which they happened fail (wired in
 * test/helpers/http.ts `buildApp`, so every HTTP test gets it; see there).
 */
import type { IncomingMessage, ServerResponse } from 'http';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ROUTES } from '../../lib/api/routes';
import type { RouteDefinition } from '../../lib/api/route-types';
import { buildOpenApiDocument } from '../../lib/openapi/document';

export interface ResponseSample {
  method: string;
  /** Path under the API root, with a leading `/` and without the query (`/ca/AB/certs/`). */
  path: string;
  status: number;
  contentType: string | undefined;
  body: string;
  /** Response headers (lower-case names); those in `DESCRIBED_HEADERS` must be declared. */
  headers?: Record<string, unknown>;
}

/**
 * Headers that carry API meaning (the next page, the auth challenge): a response sending one must
 * have it declared, or clients generated from the document never learn of it. Transport headers
 * (Content-Type, Content-Length, ...) are not described per operation in OpenAPI.
 */
const DESCRIBED_HEADERS = ['link', 'www-authenticate', 'location', 'allow', 'retry-after'];

export type Verdict =
  { kind: 'validated'; operation: string } | { kind: 'skipped'; reason: string } | { kind: 'violation'; message: string };

type OpenApiResponse = { content?: Record<string, { schema?: unknown }>; headers?: Record<string, unknown> };
type OpenApiOperation = { operationId: string; responses: Record<string, OpenApiResponse> };
type OpenApiDocument = { paths: Record<string, Record<string, OpenApiOperation>>; components: unknown };

interface CompiledDocument {
  doc: OpenApiDocument;
  ajv: Ajv2020;
  templates: { key: string; regex: RegExp; params: number }[];
  validators: Map<string, ValidateFunction>;
}

const DOC_ID = 'urn:express-ca-api:openapi';
const compiledDocs = new WeakMap<readonly RouteDefinition[], CompiledDocument>();

function compileDocument(routes: readonly RouteDefinition[]): CompiledDocument {
  let compiled = compiledDocs.get(routes);
  if (compiled) return compiled;
  const doc = closeObjects(buildOpenApiDocument('/', routes)) as unknown as OpenApiDocument;
  // strict: false because the document carries OpenAPI keywords (paths, operationId, ...) that are no
  // JSON Schema; only the schemas under it are compiled, by JSON pointer into the document.
  const ajv = new Ajv2020({ allErrors: true, strict: false, discriminator: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: DOC_ID });
  const templates = Object.keys(doc.paths).map((key) => ({
    key,
    regex: new RegExp(
      `^${key
        .split(/\{[a-z_]+\}/)
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]+')}$`,
    ),
    params: (key.match(/\{/g) ?? []).length,
  }));
  compiled = { doc, ajv, templates, validators: new Map() };
  compiledDocs.set(routes, compiled);
  return compiled;
}

/**
 * The document with `unevaluatedProperties: false` added to every object schema that lists its
 * properties (unless it says otherwise), so that a field the API sends but the document does not
 * describe is a violation too. JSON Schema allows extra properties by default, which would hide an
 * incomplete schema; clients generated from the document would silently drop such a field.
 */
function closeObjects(value: unknown, branch = false): unknown {
  if (Array.isArray(value)) return value.map((v) => closeObjects(v));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'properties') out[k] = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([p, s]) => [p, closeObjects(s)]));
    else if (k === 'examples' || k === 'example') out[k] = v;
    // A branch of an applicator only sees its own properties; the schema around it closes the object.
    else if (APPLICATORS.includes(k) && Array.isArray(v)) out[k] = v.map((s) => closeObjects(s, true));
    else out[k] = closeObjects(v);
  }
  const composed = APPLICATORS.some((k) => k in out);
  if (!branch && (out.properties || composed) && !('additionalProperties' in out) && !('unevaluatedProperties' in out)) {
    if (out.properties || out.type === 'object') out.unevaluatedProperties = false;
  }
  return out;
}

const APPLICATORS = ['allOf', 'anyOf', 'oneOf'];

/** RFC 6901 escaping of one pointer segment. */
const pointer = (segment: string): string => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));

const PUBLIC = /^\/(|docs\/?|docs\/assets\/.*|openapi\.json)$/;

export function checkResponse(sample: ResponseSample, routes: readonly RouteDefinition[] = ROUTES): Verdict {
  if (PUBLIC.test(sample.path)) return { kind: 'skipped', reason: 'the index, docs, assets and openapi.json are not operations' };
  const type = (sample.contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') return { kind: 'skipped', reason: `not JSON (${type || 'no content type'})` };

  const c = compileDocument(routes);
  const method = sample.method.toLowerCase();
  // Literal paths before templated ones, as the router would decide if two matched.
  const candidates = c.templates.filter((t) => t.regex.test(sample.path) && c.doc.paths[t.key][method]);
  candidates.sort((a, b) => a.params - b.params);
  const where = `${sample.method} ${sample.path} → ${sample.status}`;
  if (candidates.length === 0) return { kind: 'skipped', reason: `no operation for ${sample.method} ${sample.path}` };
  const key = candidates[0].key;
  const op = c.doc.paths[key][method];
  const declared = op.responses[String(sample.status)] ? String(sample.status) : op.responses.default ? 'default' : null;
  if (!declared) {
    return {
      kind: 'violation',
      message: `${where}: status ${sample.status} is not declared for ${op.operationId} (declared: ${Object.keys(op.responses).join(', ')})`,
    };
  }
  const declaredHeaders = Object.keys(op.responses[declared].headers ?? {}).map((h) => h.toLowerCase());
  const undeclared = DESCRIBED_HEADERS.filter((h) => sample.headers?.[h] !== undefined && !declaredHeaders.includes(h));
  if (undeclared.length) {
    return {
      kind: 'violation',
      message: `${where}: header(s) ${undeclared.join(', ')} not declared for ${op.operationId} response ${declared}`,
    };
  }
  const media = op.responses[declared].content?.['application/json'];
  if (!media?.schema)
    return { kind: 'violation', message: `${where}: ${op.operationId} declares no application/json body for ${declared}` };

  let body: unknown;
  try {
    body = JSON.parse(sample.body);
  } catch {
    return { kind: 'violation', message: `${where}: body is not valid JSON: ${sample.body.slice(0, 200)}` };
  }
  const ref = `${DOC_ID}#/paths/${pointer(key)}/${method}/responses/${declared}/content/${pointer('application/json')}/schema`;
  let validate = c.validators.get(ref);
  if (!validate) {
    validate = c.ajv.compile({ $ref: ref });
    c.validators.set(ref, validate);
  }
  if (validate(body)) return { kind: 'validated', operation: op.operationId };
  const errors = (validate.errors ?? [])
    .slice(0, 8)
    .map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  return {
    kind: 'violation',
    message: `${where}: body does not match ${op.operationId} response ${declared}:\n    ${errors.join('\n    ')}\n    body: ${sample.body.slice(0, 300)}`,
  };
}

// ---------------------------------------------------------------------------------------------------
// Capturing responses

/**
 * Capture what `res` sends and call `done` once it has been sent. Wraps `write`/`end` of this one
 * response object only (the router writes with `res.end(string)`; express's `res.json` ends up there
 * too).
 */
export function observeResponse(
  res: ServerResponse,
  done: (status: number, contentType: string | undefined, body: string, headers: Record<string, unknown>) => void,
): void {
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown, encoding: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    if (Buffer.isBuffer(chunk)) chunks.push(chunk);
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    else chunks.push(Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
  };
  const write = res.write;
  const end = res.end;
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    keep(chunk, rest[0]);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof res.write;
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    keep(chunk, rest[0]);
    const type = res.getHeader('content-type');
    done(res.statusCode, type === undefined ? undefined : String(type), Buffer.concat(chunks).toString('utf8'), res.getHeaders());
    return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as typeof res.end;
}

// ---------------------------------------------------------------------------------------------------
// Collecting per test file

/** Responses seen in this test file (a jest module registry is per file, and so is this state). */
export const responseStats = { validated: 0, skipped: 0, violations: 0 };
let pending: string[] = [];

/** Check a captured response and remember a violation for the running test's `afterEach`. */
export function recordResponse(sample: ResponseSample, routes?: readonly RouteDefinition[]): Verdict {
  let verdict: Verdict;
  try {
    verdict = checkResponse(sample, routes);
  } catch (e) {
    verdict = { kind: 'violation', message: `${sample.method} ${sample.path}: validator failed: ${(e as Error).message}` };
  }
  if (verdict.kind === 'validated') responseStats.validated++;
  else if (verdict.kind === 'skipped') responseStats.skipped++;
  else {
    responseStats.violations++;
    pending.push(verdict.message);
  }
  return verdict;
}

/** The violations since the last call. */
export function takeViolations(): string[] {
  const out = pending;
  pending = [];
  return out;
}

/** Fail the current test when responses sent during it broke the document. */
export function assertNoViolations(): void {
  const v = takeViolations();
  if (v.length) throw new Error(`${v.length} response(s) do not match the OpenAPI document:\n  ${v.join('\n  ')}`);
}

/** Path of `req` under `apiRoot` (`/ca/`), or null when the request is not for the API. */
export function pathUnderRoot(url: string, apiRoot: string): string | null {
  const path = url.split('?')[0];
  return path.startsWith(apiRoot) ? path.slice(apiRoot.length - 1) : null;
}

export type { IncomingMessage };

// Registered once per test file that (indirectly) imports this module. Outside jest (bench/, the
// child-process preload) there is no afterEach and nothing to register.
if (typeof afterEach === 'function') {
  afterEach(assertNoViolations);
  afterAll(() => {
    const file = process.env.RESPONSE_VALIDATOR_STATS;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    if (file) require('fs').appendFileSync(file, `${JSON.stringify({ file: expect.getState().testPath, ...responseStats })}\n`);
    assertNoViolations(); // responses of beforeAll/afterAll hooks, after the last test's afterEach
  });
}
