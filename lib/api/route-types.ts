/**
 * The shape of a route and of a handler. The route table (`routes.ts`) is data of these types; the
 * handlers import only this file, so that the table and the handlers form no import circle.
 */
import type { CertificateTexts } from './certificate-texts';
import type { Request } from 'express';
import type {
  ApiUser,
  KeyBackend,
  MetricsSink,
  OrderRecord,
  OrderRunner,
  Permission,
  PermissionChecker,
  SignatureVerifier,
  Store,
} from '../ports';
import type { Profiles } from '../ca/profiles';

/**
 * What the handlers work with, built once per mount (lib/api/services.ts). The readers are caches in
 * front of the store (lib/api/*-cache.ts, and the router's CA cache, lib/cache/ca-cache.ts); paths that
 * change something read `store` itself.
 */
export interface ApiServices {
  store: Store;
  /** CA reads of the read paths (short-lived cache; see docs/DESIGN.md "Caches on the request path"). */
  cas: Pick<Store, 'findCaBySerial' | 'getCa' | 'listCas'>;
  /** Certificate views (cache dropped on revocation). */
  certificates: Pick<Store, 'findCertificate'>;
  /** List rows as JSON text, from their states and the held parts that never change (lib/api/certificate-texts.ts). */
  certificateTexts: Pick<CertificateTexts, 'rows' | 'batches'>;
  /** Order reads for polling (finished orders from memory), and waiting for an order to finish. */
  orders: { getOrder(slug: string): Promise<OrderRecord | null>; waitUntilFinished(orderId: number, timeoutMs: number): Promise<void> };
  orderRunner: OrderRunner | null;
  /** The router's permission checker: `GET /ca/` shows only the CAs the user may view (docs/reference/differences.md D23). */
  permissions: PermissionChecker;
  keyBackends: Readonly<Record<string, KeyBackend>>;
  /** The effective profiles (defaults merged with the host's `profiles` option). */
  profiles: Profiles;
  defaultProfile: string;
  defaultExpiresMs: number;
  /** How long sign/resign wait for their order (the `orderWaitMs` option). */
  orderWaitMs: number;
  /** Whether sign/resign may sign in the request (the `signInRequest` option). */
  signInRequest: boolean;
  /** Checks the CSR self-signatures of sign requests off the event loop; null: libuv's thread pool. */
  signatureVerifier: SignatureVerifier | null;
  /** Where the services report what they do (docs/operations/metrics.md): issuance latency here. */
  metrics: MetricsSink;
}

/** One request, authenticated, authorised and validated. */
export interface ApiContext {
  user: ApiUser;
  /** The client's address (Express's `req.ip`, so the host's `trust proxy`), recorded with the changes it makes. */
  address: string | null;
  /** Path parameters; `serial`/`certificate_serial` upper-case hex without colons or leading zeros. */
  params: Record<string, string>;
  /** Query parameters declared by the route's query schema, coerced, defaults applied. */
  query: Record<string, unknown>;
  /** The validated JSON body (routes with a body schema), else null. */
  body: Record<string, unknown> | null;
  /** One clock reading per request, so that every "now" in a response agrees. */
  now: Date;
  /** Absolute path of the API root as the client sees it (mount path included), e.g. `/django_ca/api/`. */
  apiBase: string;
  services: ApiServices;
}

export interface ApiResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** `body` as JSON text, when the handler already has it (see `memoisedView` in json.ts). */
  json?: string | Buffer;
  /**
   * The body as a stream of JSON chunks (text or UTF-8) instead (`body` unused): written with back-pressure and
   * ended when the client goes away (lib/api/json-stream.ts). For unpaged lists.
   */
  stream?: AsyncIterable<string | Buffer>;
}

export type ApiHandler = (ctx: ApiContext, req: Request) => Promise<ApiResult>;

export type HttpMethod = 'GET' | 'PUT' | 'POST';

export interface RouteDefinition {
  method: HttpMethod;
  /** Relative to the API root, with `{param}` placeholders (see path-params.ts); always ends in `/`. */
  path: string;
  /** The upstream function name; the operationId is `service_api_endpoints_<operation>`. */
  operation: string;
  summary: string;
  description: string;
  tag: 'Profiles' | 'Certificate authorities' | 'Certificates';
  permission: Permission;
  /** Request body: schema name (schemas/<name>.json) and the parameter name reported in `loc[1]`. */
  body?: { schema: string; param: string };
  /** Schema of the query parameters (schemas/<name>.json). */
  query?: string;
  /** Success response (always 200): schema name, as a list or not. */
  response: { schema: string; list?: boolean };
  /** Error statuses besides 401/403/422 that the endpoint can answer. */
  errors: number[];
  handler: ApiHandler;
}

export const OPERATION_ID_PREFIX = 'service_api_endpoints_';

export const operationId = (route: RouteDefinition): string => `${OPERATION_ID_PREFIX}${route.operation}`;
