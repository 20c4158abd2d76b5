/**
 * `createCaApiRouter(options)`: the Express middleware that serves the API under `/{urlPath}api/`.
 *
 * Request processing order (docs/COMPATIBILITY.md §1.2), which decides which error a client sees:
 *   1. routing — outside the API root → `next()` (the host app's business); under it but unknown → 404
 *   2. method — a path that exists with another method → 405 with `Allow`
 *   3. authentication → 401 (with `WWW-Authenticate`, D5), then permission → 403
 *   4. body: too large → 413, not JSON → 400; then query + body validation → 422 (all problems at once)
 *   5. the handler
 * Everything under the API root answers JSON (D11), including 404/405, a database outage (503 with
 * `Retry-After`, lib/api/unavailable.ts) and unexpected errors (500, logged without request details
 * that could hold credentials). API answers are never stored by caches (`Cache-Control: no-store`:
 * they are per user and may be sensitive) nor sniffed as another type (`X-Content-Type-Options`).
 */
import { CertificateTexts } from './ca/certificate-texts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { basicAuthenticator } from './api/basic-auth';
import { CaCache } from './cache/ca-cache';
import { CertificateCache } from './api/certificate-cache';
import {
  BASIC_REALM,
  forbidden,
  HttpError,
  internalError,
  methodNotAllowed,
  notFound,
  toHttpError,
  unauthorized,
  unprocessable,
  type ValidationItem,
} from './http/http-errors';
import { NO_BODY, readJsonBody, serializeJson } from './http/body';
import { sendJsonStream } from './api/json-stream';
import { OrderCache } from './api/order-cache';
import { compileRoute, matchingRoutes } from './http/path-matcher';
import type { ApiContext, ApiServices, RouteDefinition } from './api/route-types';
import { ROUTES } from './api/routes';
import { OutageLog } from './http/outage';
import { compileAll, pathTextItems, validateBody, validateQuery } from './api/validation';
import { docsAsset, docsHtml, DOCS_ASSET_DIR, DOCS_CSP } from './openapi/docs';
import { buildOpenApiDocument } from './openapi/document';
import type { ResolvedOptions } from './options';
import { subscribeIfSupported } from './cache/record-cache';
import {
  hasRevocationStore,
  type Authenticator,
  type CaChangeEvents,
  type CertificateChangeEvents,
  type KeyBackend,
  type LoginAttemptLimiter,
  type OrderRunner,
  type PermissionChecker,
  type Store,
} from './ports';
import { CrlPublisher } from './ca/crls';
import { OcspResponder } from './ca/ocsp';
import { serveRevocationEndpoint, type RevocationEndpoints } from './revocation-endpoints/handlers/ocsp';

export type { CaApiRouterOptions } from './options';

export interface CaApiRouter extends RequestHandler {
  /** Stop what the router started (bcrypt threads, the order runner). Idempotent. */
  close(): Promise<void>;
  /** The validated options, for introspection and tests. */
  readonly options: ResolvedOptions;
}

/** @internal For tests of the infrastructure. */
export interface CreateCaApiRouterInternals {
  /** Replace the route table (tests of the infrastructure; the other endpoints keep their handlers). */
  routes?: readonly RouteDefinition[];
}

/** Something the router owns and closes in `close()`, after the order runner has stopped. */
export interface Closable {
  close(): Promise<void> | void;
}

/**
 * Every port the API needs, chosen by the composition root (the package entry, lib/index.ts, fills
 * in the default adapters for what the host did not bring).
 */
export interface ApiPorts {
  store: Store;
  keyBackends: Readonly<Record<string, KeyBackend>>;
  authenticator: Authenticator;
  permissions: PermissionChecker;
  /** Brute-force protection of Basic auth; null: none. */
  loginLimiter: LoginAttemptLimiter | null;
  /** Started with the router and stopped by `close()`; null = orders are processed elsewhere. */
  orderRunner: OrderRunner | null;
  /** Closed by `close()` after the runner (the defaults' bcrypt threads and user cache). */
  owned: readonly Closable[];
}

/** A JSON response; `json` is the body's text when it is already serialised. */
function sendJson(res: Response, status: number, body: unknown, headers: Record<string, string> = {}, json?: string | Buffer): void {
  res.status(status);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (!res.hasHeader('Cache-Control')) res.setHeader('Cache-Control', 'no-store');
  res.end(json ?? serializeJson(body));
}

function sendError(res: Response, error: HttpError): void {
  sendJson(res, error.status, error.body, error.headers);
}

function sendAsset(res: Response, type: string, body: Buffer | string, extra: Record<string, string> = {}): void {
  res.status(200);
  res.setHeader('Content-Type', type);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  for (const [name, value] of Object.entries(extra)) res.setHeader(name, value);
  res.end(body);
}

/**
 * The router over validated options and chosen ports (`ports` is null when the API is disabled).
 * Hosts call `createCaApiRouter` (the package entry), which validates the options and wires the
 * default adapters; this function imports no adapter.
 */
export function buildCaApiRouter(
  resolved: ResolvedOptions,
  ports: ApiPorts | null,
  internals: CreateCaApiRouterInternals = {},
): CaApiRouter {
  const routes = (internals.routes ?? ROUTES).map(compileRoute);
  if (ports) compileAll(); // a broken schema fails here, not in a request
  const api = ports ? startApi(resolved, ports) : null;
  const outages = new OutageLog(resolved.logError);
  const documents = new Map<string, string>();
  const openApiJson = (apiBase: string): string => {
    let doc = documents.get(apiBase);
    if (!doc) {
      doc = serializeJson(
        buildOpenApiDocument(
          apiBase,
          routes.map((r) => r.route),
        ),
      );
      documents.set(apiBase, doc);
    }
    return doc;
  };

  /** Docs, assets and the OpenAPI document: no authentication, as upstream. True when handled. */
  const servePublic = (req: Request, res: Response, rest: string, apiBase: string): boolean => {
    const isDocs = rest === 'docs' || rest === 'docs/';
    const isSpec = rest === 'openapi.json';
    const asset = rest.startsWith(DOCS_ASSET_DIR) ? docsAsset(rest.slice(DOCS_ASSET_DIR.length), apiBase) : null;
    if (!isDocs && !isSpec && !asset) return false;
    if (req.method !== 'GET') {
      sendError(res, methodNotAllowed(['GET']));
      return true;
    }
    if (isSpec) sendAsset(res, 'application/json', openApiJson(apiBase));
    else if (isDocs) sendAsset(res, 'text/html; charset=utf-8', docsHtml(apiBase), { 'Content-Security-Policy': DOCS_CSP });
    else if (asset) sendAsset(res, asset.type, asset.body, { 'Cache-Control': 'public, max-age=3600' });
    return true;
  };

  async function handleApi(api: RunningApi, req: Request, res: Response, rest: string, apiBase: string): Promise<void> {
    if (servePublic(req, res, rest, apiBase)) return;

    // 1. routing
    const path = `/${rest}`;
    const candidates = matchingRoutes(routes, path);
    if (candidates.length === 0) {
      if (!path.endsWith('/') && matchingRoutes(routes, `${path}/`).length > 0) {
        // Upstream redirects (APPEND_SLASH). 308 for methods with a body, so that it is not lost.
        const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
        const status = req.method === 'GET' ? 301 : 308;
        sendJson(res, status, { detail: 'Moved Permanently' }, { Location: `${apiBase}${rest}/${query}` });
        return;
      }
      throw notFound();
    }
    // 2. method
    const chosen = candidates.find((c) => c.compiled.route.method === req.method);
    if (!chosen) throw methodNotAllowed(candidates.map((c) => c.compiled.route.method));
    const route = chosen.compiled.route;

    // 3. authentication, then permission
    const user = await api.authenticate(req, res);
    if (!user) throw unauthorized();
    const badPath = pathTextItems(chosen.params);
    if (badPath.length) throw unprocessable(badPath);
    const scope = chosen.params.serial ? { caSerial: chosen.params.serial } : undefined;
    if (!(await api.permissions.hasPermission(user, route.permission, scope))) throw forbidden();

    // 4. parameters: body parse errors (400/413) first, then every validation problem at once (422)
    const items: ValidationItem[] = [];
    let query: Record<string, unknown> = {};
    if (route.query) {
      const q = validateQuery(route.query, req.query as Record<string, unknown>);
      if (q.ok) query = q.value;
      else items.push(...q.items);
    }
    let body: Record<string, unknown> | null = null;
    if (route.body) {
      const parsed = await readJsonBody(req, resolved.bodyLimit);
      const b = validateBody(route.body.schema, route.body.param, parsed);
      if (b.ok) body = b.value;
      else items.push(...b.items);
    } else if (route.method !== 'GET') {
      await readJsonBody(req, resolved.bodyLimit).catch(() => NO_BODY); // drain; the body is ignored
    }
    if (items.length) throw unprocessable(items);

    // 5. the handler
    const ctx: ApiContext = { user, params: chosen.params, query, body, now: new Date(), apiBase, services: api.services };
    let result;
    try {
      result = await route.handler(ctx, req);
    } catch (e) {
      // Engine validation errors of a body are reported relative to the body parameter.
      const mapped = toHttpError(e, route.body ? ['body', route.body.param] : ['body']);
      if (mapped) throw mapped;
      throw e;
    }
    // Unpaged lists: written batch by batch with back-pressure (lib/api/json-stream.ts).
    if (result.stream) return sendJsonStream(res, result.status, result.headers ?? {}, result.stream);
    sendJson(res, result.status, result.body, result.headers, result.json);
  }

  const caApiRouter = function caApiRouter(req: Request, res: Response, next: NextFunction): void {
    if (!api) return next();
    const path = req.path;
    if (path === resolved.apiRoot.slice(0, -1)) {
      // `{api_root}` without its slash: redirect like every other route (APPEND_SLASH), not the host's 404.
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      sendJson(
        res,
        req.method === 'GET' ? 301 : 308,
        { detail: 'Moved Permanently' },
        { Location: `${req.baseUrl}${resolved.apiRoot}${query}` },
      );
      return;
    }
    const prefix = `/${resolved.urlPath}`;
    if (api.revocation && path.startsWith(prefix) && !path.startsWith(resolved.apiRoot)) {
      serveRevocationEndpoint(api.revocation, req, res, path.slice(prefix.length), sendError).then(
        (served) => {
          if (!served) next();
        },
        (error: unknown) => {
          let http = outages.toHttpError(error);
          if (!http) {
            resolved.logError(`express-ca-api: ${req.method} ${path} failed`, error);
            http = internalError();
          }
          if (res.headersSent) res.destroy();
          else sendError(res, http);
        },
      );
      return;
    }
    if (!path.startsWith(resolved.apiRoot)) return next();
    const rest = path.slice(resolved.apiRoot.length);
    const apiBase = `${req.baseUrl}${resolved.apiRoot}`;
    handleApi(api, req, res, rest, apiBase).catch((error: unknown) => {
      let http = toHttpError(error, ['body']) ?? outages.toHttpError(error);
      if (!http) {
        // Only the error itself: never the request, whose headers may carry credentials.
        resolved.logError(`express-ca-api: ${req.method} ${path} failed`, error);
        http = internalError();
      }
      if (res.headersSent) res.destroy();
      else sendError(res, http);
    });
  } as CaApiRouter;

  let closing: Promise<void> | null = null;
  Object.defineProperty(caApiRouter, 'options', { value: resolved, enumerable: true });
  caApiRouter.close = () => {
    closing ??= api ? api.close() : Promise.resolve();
    return closing;
  };
  return caApiRouter;
}

interface RunningApi {
  services: ApiServices;
  /** The public CRL/OCSP/issuer endpoints; null when not served (option, or a store without the capability). */
  revocation: RevocationEndpoints | null;
  authenticate: ReturnType<typeof basicAuthenticator>;
  permissions: PermissionChecker;
  close(): Promise<void>;
}

/** The API's per-router state: caches in front of the store, the runner started, and how to close it all. */
function startApi(resolved: ResolvedOptions, ports: ApiPorts): RunningApi {
  const { store, orderRunner } = ports;
  const cas = new CaCache(store);
  const certificates = new CertificateCache(store);
  // Finished orders from memory for polling clients; fed by the runner when it announces them.
  const orders = new OrderCache(store, orderRunner);
  const runnerStarted = orderRunner
    ? orderRunner.start().catch((e: unknown) => resolved.logError('express-ca-api: order runner failed to start', e))
    : null;
  const services: ApiServices = {
    store,
    cas,
    certificates,
    certificateTexts: new CertificateTexts(store),
    orders,
    orderRunner,
    permissions: ports.permissions,
    keyBackends: ports.keyBackends,
    profiles: resolved.effectiveProfiles,
    defaultProfile: resolved.defaultProfile,
    defaultExpiresMs: resolved.defaultExpiresMs,
    orderWaitMs: resolved.orderWaitMs,
    signInRequest: resolved.signInRequest,
  };
  let revocation: RevocationEndpoints | null = null;
  const unsubscribe: (() => void)[] = [];
  if (resolved.serveRevocation && hasRevocationStore(store)) {
    const crls = new CrlPublisher(store, ports.keyBackends);
    const ocsp = new OcspResponder(store, ports.keyBackends, resolved.effectiveProfiles, {
      signWith: resolved.ocspSigning,
      logError: resolved.logError,
    });
    revocation = { cas, crls, ocsp };
    // A revocation through this process: CRLs re-check the store's revocation version at once.
    const seen = () => {
      crls.revocationSeen();
      ocsp.revocationSeen();
    };
    const events = store as Partial<CertificateChangeEvents & CaChangeEvents>;
    for (const subscribe of [events.onCertificateChanged, events.onCaChanged]) {
      const stop = subscribeIfSupported(subscribe?.bind(store), seen);
      if (stop) unsubscribe.push(stop);
    }
  }
  return {
    services,
    revocation,
    authenticate: basicAuthenticator(ports.authenticator, BASIC_REALM, ports.loginLimiter),
    permissions: ports.permissions,
    async close(): Promise<void> {
      if (runnerStarted && orderRunner) {
        await runnerStarted;
        await orderRunner.stop();
      }
      for (const stop of unsubscribe) stop();
      for (const resource of ports.owned) await resource.close();
      cas.close();
      certificates.close();
      orders.close();
    },
  };
}
