/**
 * The OpenAPI 3.1.0 document of the API, built from the route table and the same schemas/*.json
 * files that validate requests — so the description cannot drift from the behaviour.
 *
 * Schema files reference each other as `Name.json`; here those become `#/components/schemas/Name`.
 * Paths are absolute and include the mount prefix, as upstream (`/django_ca/api/ca/{serial}/`).
 */
import * as fs from 'fs';
import * as path from 'path';
import { PATH_PARAM_KINDS } from '../api/path-params';
import { ROUTES } from '../api/routes';
import { operationId, type RouteDefinition } from '../api/route-types';
import { loadSchemas, type JsonSchema } from '../api/schemas';

/** The version of the API description we implement (docs/COMPATIBILITY.md §1.1: `info.version`). */
export const API_VERSION = '3.1.0';

let packageVersion: string | null = null;

/** `version` of this package's package.json, from source or from the build. */
export function getPackageVersion(): string {
  if (packageVersion) return packageVersion;
  for (const candidate of ['../../package.json', '../../../package.json']) {
    const file = path.resolve(__dirname, candidate);
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'express-ca-api' && pkg.version) return (packageVersion = pkg.version);
  }
  return (packageVersion = '0.0.0');
}

/** Rewrite file references (`Name.json`) to component references, dropping JSON-Schema-file ids. */
function toComponent(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponent);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === '$schema' || key === '$id') continue;
    if (key === '$ref' && typeof v === 'string') out[key] = `#/components/schemas/${v.replace(/\.json$/, '')}`;
    else out[key] = toComponent(v);
  }
  return out;
}

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const PARAM_SCHEMAS: Record<string, JsonSchema> = {
  serial: { type: 'string', pattern: '^[0-9A-Fa-f:]+$', description: 'Serial in hex; case-insensitive, colons and leading zeros allowed' },
  slug: { type: 'string', pattern: '^[a-zA-Z0-9]+$' },
  name: { type: 'string' },
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request: a body that cannot be read, or a host the router does not answer for (`allowedHosts`, docs/reference/options.md)',
  401: 'Missing or wrong credentials',
  403: 'The user lacks the permission',
  404: 'Not found',
  413: 'Request body too large',
  422: 'Validation error',
  429: 'Too many failed login attempts for this username or from this address (docs/operations/hostile-clients-and-outages.md "Brute-force protection")',
  500: 'Internal server error',
  503: 'The database is unavailable; retry after `Retry-After` seconds (docs/operations/hostile-clients-and-outages.md "Outages")',
};

function jsonContent(schema: JsonSchema): Record<string, unknown> {
  return { 'application/json': { schema } };
}

function parameters(route: RouteDefinition, schemas: Map<string, JsonSchema>): JsonSchema[] {
  const params: JsonSchema[] = [];
  for (const m of route.path.matchAll(/\{([a-z_]+)\}/g)) {
    params.push({ name: m[1], in: 'path', required: true, schema: PARAM_SCHEMAS[PATH_PARAM_KINDS[m[1]]] });
  }
  if (route.query) {
    const props = (schemas.get(route.query)?.properties ?? {}) as Record<string, JsonSchema>;
    for (const [name, schema] of Object.entries(props)) {
      const { description, ...rest } = schema;
      params.push({ name, in: 'query', required: false, ...(description ? { description } : {}), schema: rest });
    }
  }
  return params;
}

function operation(route: RouteDefinition, schemas: Map<string, JsonSchema>): JsonSchema {
  const success = route.response.list ? { type: 'array', items: ref(route.response.schema) } : ref(route.response.schema);
  const ok: Record<string, unknown> = { description: 'OK', content: jsonContent(success) };
  // Paged lists (a `limit` query parameter, lib/api/pagination.ts) announce the next page only here.
  const paged = route.query !== undefined && 'limit' in ((schemas.get(route.query)?.properties ?? {}) as object);
  if (route.response.list && paged)
    ok.headers = { Link: { description: '`<url>; rel="next"` when more items follow', schema: { type: 'string' } } };
  const responses: Record<string, unknown> = { '200': ok };
  // 500: any operation can fail unexpectedly, and the router answers that in JSON too (docs/reference/differences.md D11);
  // 400: any request for a host outside `allowedHosts`.
  const statuses = new Set([
    ...route.errors,
    400,
    401,
    403,
    429,
    500,
    503,
    ...(route.body || route.query || route.path.includes('{') ? [422] : []),
    ...(route.body ? [413] : []),
  ]);
  for (const status of [...statuses].sort()) {
    const response: Record<string, unknown> = {
      description: ERROR_DESCRIPTIONS[status] ?? 'Error',
      content: jsonContent(ref(status === 422 ? 'ValidationError' : 'Error')),
    };
    if (status === 401) {
      response.headers = { 'WWW-Authenticate': { description: 'Basic realm="django-ca"', schema: { type: 'string' } } };
    }
    if (status === 429 || status === 503) {
      response.headers = { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } };
    }
    responses[String(status)] = response;
  }
  const op: JsonSchema = {
    operationId: operationId(route),
    summary: route.summary,
    description: route.description,
    tags: [route.tag],
    parameters: parameters(route, schemas),
    responses,
    security: [{ BasicAuth: [] }],
    'x-permission': `django_ca.${route.permission}`,
  };
  if (route.body) op.requestBody = { required: true, content: jsonContent(ref(route.body.schema)) };
  return op;
}

/**
 * The document for an API whose root is at `apiBase` (absolute, with the host's mount path and
 * trailing slash, e.g. `/django_ca/api/`).
 */
export function buildOpenApiDocument(apiBase: string, routes: readonly RouteDefinition[] = ROUTES): JsonSchema {
  const schemas = loadSchemas();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const key = `${apiBase}${route.path.slice(1)}`;
    paths[key] ??= {};
    paths[key][route.method.toLowerCase()] = operation(route, schemas);
  }
  const components: Record<string, unknown> = {};
  for (const [name, schema] of schemas) components[name] = toComponent(schema);
  return {
    openapi: '3.1.0',
    info: {
      title: 'django-ca API',
      version: API_VERSION,
      description: '',
      'x-package-version': getPackageVersion(),
    },
    servers: [],
    paths,
    components: {
      schemas: components,
      securitySchemes: { BasicAuth: { type: 'http', scheme: 'basic' } },
    },
    tags: [{ name: 'Profiles' }, { name: 'Certificate authorities' }, { name: 'Certificates' }],
  };
}
