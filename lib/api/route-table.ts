/**
 * The eleven endpoints of the API, as one table that reads like the reference (api.md §1).
 *
 * Everything the router, the validator and the OpenAPI document need is declared here: method, path
 * (relative to the API root, with typed path parameters), the permission, request and response
 * schemas (names of files in schemas/), the documented error statuses and the handler.
 *
 * Handlers receive an `ApiContext` whose input is already authenticated, authorised and validated,
 * and return `{status, body, headers?}`. Until the endpoint modules exist the table points at
 * `notImplementedHandler`; replace each with the real function (e.g. `import { listProfiles } from
 * './profiles'`).
 */
import type { Request } from 'express';
import type { ApiUser, KeyBackend, OrderRunner, Permission, PermissionChecker, Store } from '../ports';
import type { ProfileConfig } from '../options';
import { notImplemented } from './http-errors';
import { listCertificateAuthorities, updateCertificateAuthority, viewCertificateAuthority } from './cas';
import { listCertificates, revokeCertificate, viewCertificate } from './certs';
import { getCertificateOrder, resignCertificate, signCertificate } from './orders';
import { listProfiles, viewProfile } from './profiles';

/** Everything a handler may use. Input is validated; serial path parameters are sanitised. */
export interface ApiContext {
  user: ApiUser;
  /** Path parameters; `serial`/`certificate_serial` upper-case hex without colons or leading zeros. */
  params: Record<string, string>;
  /** Query parameters declared by the route's query schema, coerced, defaults applied. */
  query: Record<string, unknown>;
  /** The validated JSON body (routes with a body schema), else null. */
  body: Record<string, unknown> | null;
  store: Store;
  /**
   * CA lookups for read paths: the router's short-lived CA cache (lib/api/ca-cache.ts), or the store
   * itself. Paths that change something read the CA from `store`.
   */
  cas?: Pick<Store, 'findCaBySerial' | 'getCa'>;
  /** Certificate views: the router's certificate cache (lib/api/certificate-cache.ts), or the store. */
  certificates?: Pick<Store, 'findCertificate'>;
  keyBackends: Record<string, KeyBackend>;
  permissions: PermissionChecker;
  orderRunner: OrderRunner | null;
  /**
   * Order reads for polling: the router's cache of finished orders (lib/api/order-cache.ts), which can
   * also wait for an order to finish; absent → `store.getOrder`, no waiting.
   */
  orders?: Pick<Store, 'getOrder'> & { waitUntilFinished(orderId: number, timeoutMs: number): Promise<void> };
  /** How long sign/resign wait for their order (the `orderWaitMs` option). */
  orderWaitMs?: number;
  /** The host's `profiles` option (merge it into the defaults with lib/ca's profile code). */
  profiles: Record<string, ProfileConfig | null>;
  defaultProfile: string;
  defaultExpiresMs: number;
  /** Absolute path of the API root as the client sees it (mount path included), e.g. `/django_ca/api/`. */
  apiBase: string;
  /** One clock reading per request, so that every "now" in a response agrees. */
  now: Date;
}

export interface ApiResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** `body` as JSON text, when the handler already has it (see `okView` in json.ts). */
  json?: string;
}

export type ApiHandler = (ctx: ApiContext, req: Request) => Promise<ApiResult>;

export type HttpMethod = 'GET' | 'PUT' | 'POST';

/** Kinds of path parameter and what they match (api.md §2, D7). */
export type PathParamKind = 'serial' | 'slug' | 'name';

export const PATH_PARAM_KINDS: Record<string, PathParamKind> = {
  serial: 'serial',
  certificate_serial: 'serial',
  slug: 'slug',
  name: 'name',
};

export interface RouteDefinition {
  method: HttpMethod;
  /** Relative to the API root, with `{param}` placeholders; always ends in `/`. */
  path: string;
  /** The upstream function name; the operationId is `service_api_endpoints_<operation>`. */
  operation: string;
  summary: string;
  description: string;
  tag: 'Profiles' | 'Certificate authorities' | 'Certificates';
  permission: Permission;
  /** Request body: schema name and the parameter name ninja reports in `loc[1]`. */
  body?: { schema: string; param: string };
  /** Schema of the query parameters. */
  query?: string;
  /** Success response (always 200): schema name, as a list or not. */
  response: { schema: string; list?: boolean };
  /** Error statuses besides 401/403/422 that the endpoint can answer. */
  errors: number[];
  handler: ApiHandler;
}

export const OPERATION_ID_PREFIX = 'service_api_endpoints_';

export const operationId = (route: RouteDefinition): string => `${OPERATION_ID_PREFIX}${route.operation}`;

/** Placeholder until the endpoint modules exist: 501 `{"detail": "Not implemented"}`. */
export const notImplementedHandler: ApiHandler = async () => {
  throw notImplemented();
};

export const ROUTES: readonly RouteDefinition[] = [
  {
    method: 'GET',
    path: '/profiles/',
    operation: 'list_profiles',
    summary: 'List available profiles',
    description: 'All configured certificate profiles, in configured order.',
    tag: 'Profiles',
    permission: 'sign_certificate',
    response: { schema: 'Profile', list: true },
    errors: [],
    handler: listProfiles,
  },
  {
    method: 'GET',
    path: '/profiles/{name}/',
    operation: 'view_profile',
    summary: 'List available profiles', // sic: the upstream summary of this endpoint
    description: 'One certificate profile.',
    tag: 'Profiles',
    permission: 'sign_certificate',
    response: { schema: 'Profile' },
    errors: [404],
    handler: viewProfile,
  },
  {
    method: 'GET',
    path: '/ca/',
    operation: 'list_certificate_authorities',
    summary: 'List available certificate authorities',
    description: 'Enabled, API-enabled certificate authorities, by default only those currently valid.',
    tag: 'Certificate authorities',
    permission: 'view_certificateauthority',
    query: 'ListCertificateAuthoritiesQuery',
    response: { schema: 'CertificateAuthority', list: true },
    errors: [],
    handler: listCertificateAuthorities,
  },
  {
    method: 'GET',
    path: '/ca/{serial}/',
    operation: 'view_certificate_authority',
    summary: 'View certificate authority',
    description: 'One certificate authority (also when expired).',
    tag: 'Certificate authorities',
    permission: 'view_certificateauthority',
    response: { schema: 'CertificateAuthority' },
    errors: [404],
    handler: viewCertificateAuthority,
  },
  {
    method: 'PUT',
    path: '/ca/{serial}/',
    operation: 'update_certificate_authority',
    summary: 'Update certificate authority',
    description: 'Change the fields present in the body; others stay as they are.',
    tag: 'Certificate authorities',
    permission: 'change_certificateauthority',
    body: { schema: 'CertificateAuthorityUpdate', param: 'data' },
    response: { schema: 'CertificateAuthority' },
    errors: [400, 404],
    handler: updateCertificateAuthority,
  },
  {
    method: 'POST',
    path: '/ca/{serial}/sign/',
    operation: 'sign_certificate',
    summary: 'Sign a certificate',
    description:
      'Create an order to sign the CSR. The response is the order as created (status `pending`); poll the order to get the certificate serial.',
    tag: 'Certificates',
    permission: 'sign_certificate',
    body: { schema: 'SignCertificate', param: 'data' },
    response: { schema: 'CertificateOrder' },
    errors: [400, 404],
    handler: signCertificate,
  },
  {
    method: 'GET',
    path: '/ca/{serial}/orders/{slug}/',
    operation: 'get_certificate_order',
    summary: 'Retrieve certificate order',
    description: 'An order created by the calling user.',
    tag: 'Certificates',
    permission: 'sign_certificate',
    response: { schema: 'CertificateOrder' },
    errors: [404],
    handler: getCertificateOrder,
  },
  {
    method: 'GET',
    path: '/ca/{serial}/certs/',
    operation: 'list_certificates',
    summary: 'List certificates',
    description:
      'Certificates issued by this CA. By default expired, revoked and automatically generated certificates are left out; the flags add them.',
    tag: 'Certificates',
    permission: 'view_certificate',
    query: 'ListCertificatesQuery',
    response: { schema: 'Certificate', list: true },
    errors: [404],
    handler: listCertificates,
  },
  {
    method: 'GET',
    path: '/ca/{serial}/certs/{certificate_serial}/',
    operation: 'view_certificate',
    summary: 'View certificate',
    description: 'One certificate issued by this CA, in any state.',
    tag: 'Certificates',
    permission: 'view_certificate',
    response: { schema: 'Certificate' },
    errors: [404],
    handler: viewCertificate,
  },
  {
    method: 'POST',
    path: '/ca/{serial}/certs/{certificate_serial}/resign/',
    operation: 'resign_certificate',
    summary: 'Resign a certificate',
    description: 'Create an order to sign the stored CSR of a certificate again.',
    tag: 'Certificates',
    permission: 'sign_certificate',
    body: { schema: 'ResignCertificate', param: 'data' },
    response: { schema: 'CertificateOrder' },
    errors: [400, 404],
    handler: resignCertificate,
  },
  {
    method: 'POST',
    path: '/ca/{serial}/certs/{certificate_serial}/revoke/',
    operation: 'revoke_certificate',
    summary: 'Revoke certificate',
    description: 'Revoke a currently valid certificate of this CA.',
    tag: 'Certificates',
    permission: 'revoke_certificate',
    body: { schema: 'RevokeCertificate', param: 'revocation' },
    response: { schema: 'Certificate' },
    errors: [400, 404],
    handler: revokeCertificate,
  },
];

// ---------------------------------------------------------------------------------------------------
// Matching

const PARAM_PATTERNS: Record<PathParamKind, string> = {
  serial: '[0-9A-Fa-f:]+', // D7: case-insensitive; colons as in the CLI's output
  slug: '[a-zA-Z0-9]+',
  name: '[^/]+',
};

/** `42:27:ca:00` → `4227CA00`; leading zeros go (`000A` → `A`), a zero serial stays `0`. */
export function sanitizeSerial(raw: string): string {
  const hex = raw.replace(/:/g, '').toUpperCase().replace(/^0+/, '');
  return hex === '' ? '0' : hex;
}

export interface CompiledRoute {
  route: RouteDefinition;
  regex: RegExp;
  paramNames: string[];
}

export function compileRoute(route: RouteDefinition): CompiledRoute {
  const paramNames: string[] = [];
  const source = route.path
    .split(/(\{[a-z_]+\})/)
    .map((part) => {
      const m = /^\{([a-z_]+)\}$/.exec(part);
      if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const kind = PATH_PARAM_KINDS[m[1]];
      if (!kind) throw new Error(`route ${route.path}: unknown path parameter {${m[1]}}`);
      paramNames.push(m[1]);
      return `(${PARAM_PATTERNS[kind]})`;
    })
    .join('');
  return { route, regex: new RegExp(`^${source}$`), paramNames };
}

/** Path parameters of `path` for this route, converted; null when the path does not match. */
export function matchRoute(compiled: CompiledRoute, path: string): Record<string, string> | null {
  const m = compiled.regex.exec(path);
  if (!m) return null;
  const params: Record<string, string> = {};
  for (const [i, name] of compiled.paramNames.entries()) {
    const raw = m[i + 1];
    const kind = PATH_PARAM_KINDS[name];
    if (kind === 'serial') params[name] = sanitizeSerial(raw);
    else if (kind === 'name') {
      try {
        params[name] = decodeURIComponent(raw);
      } catch {
        return null; // malformed percent-encoding cannot name anything
      }
    } else params[name] = raw;
  }
  return params;
}
