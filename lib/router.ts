/**
 * `createCaApiRouter(options)`: the Express middleware that serves the API under `/{urlPath}api/`.
 *
 * Request processing order (reference/api.md §3), which decides which error a client sees:
 *   1. routing — outside the API root → `next()` (the host app's business); under it but unknown → 404
 *   2. method — a path that exists with another method → 405 with `Allow`
 *   3. authentication → 401 (with `WWW-Authenticate`, D5), then permission → 403
 *   4. body: too large → 413, not JSON → 400; then query + body validation → 422 (all problems at once)
 *   5. the handler
 * Everything under the API root answers JSON (D11), including 404/405 and unexpected errors (500,
 * logged without request details that could hold credentials).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { basicAuthenticator, type RequestAuthenticator } from '../adapters/auth/basic';
import { storeAuthenticator, type StoreAuthenticator } from '../adapters/auth/store-authenticator';
import { storePermissionChecker } from '../adapters/auth/store-permissions';
import { UserCache } from '../adapters/auth/user-cache';
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
} from './api/http-errors';
import { NO_BODY, readJsonBody, serializeJson } from './api/json-body';
import {
  compileRoute,
  matchRoute,
  ROUTES,
  type ApiContext,
  type CompiledRoute,
  type RouteDefinition,
} from './api/route-table';
import { CaCache } from './api/ca-cache';
import { CertificateCache } from './api/certificate-cache';
import { OrderCache } from './api/order-cache';
import { compileAll, validateBody, validateQuery } from './api/validation';
import { docsAsset, docsHtml, DOCS_ASSET_DIR, DOCS_CSP } from './openapi/docs';
import { buildOpenApiDocument } from './openapi/document';
import { resolveOptions, type CaApiRouterOptions, type ResolvedOptions } from './options';
import type { OrderRunner, PermissionChecker, Store } from './ports';
import { inProcessOrderRunner } from '../adapters/worker/in-process';

export type { CaApiRouterOptions } from './options';

export interface CaApiRouter extends RequestHandler {
  /** Stop what the router started (bcrypt threads, the order runner). Idempotent. */
  close(): Promise<void>;
  /** The validated options, for introspection and tests. */
  readonly options: ResolvedOptions;
}

export interface CreateCaApiRouterInternals {
  /** Replace the route table (tests of the infrastructure; the other endpoints keep their handlers). */
  routes?: readonly RouteDefinition[];
}

/** A JSON response; `json` is the body's text when it is already serialised. */
function sendJson(res: Response, status: number, body: unknown, headers: Record<string, string> = {}, json?: string): void {
  res.status(status);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
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

export function createCaApiRouter(
  options: CaApiRouterOptions = {},
  internals: CreateCaApiRouterInternals = {},
): CaApiRouter {
  const resolved = resolveOptions(options);
  const routes = (internals.routes ?? ROUTES).map(compileRoute);

  let ownAuthenticator: StoreAuthenticator | null = null;
  let authenticate: RequestAuthenticator | null = null;
  let permissions: PermissionChecker | null = null;
  let store: Store | null = null;
  // User rows shared by the default authenticator and permission checker (see user-cache.ts for how
  // fresh they are kept); absent when the host brings both.
  let users: UserCache | null = null;
  let cas: CaCache | null = null;
  let certificates: CertificateCache | null = null;
  if (resolved.enableRestApi) {
    store = resolved.store as Store; // resolveOptions guarantees a store when enabled
    cas = new CaCache(store);
    certificates = new CertificateCache(store);
    compileAll(); // a broken schema fails here, not in a request
    if (!resolved.authenticator || !resolved.permissions) users = new UserCache(store);
    if (!resolved.authenticator) ownAuthenticator = storeAuthenticator(store, { users: users as UserCache });
    authenticate = basicAuthenticator(resolved.authenticator ?? (ownAuthenticator as StoreAuthenticator), BASIC_REALM);
    permissions = resolved.permissions ?? storePermissionChecker(store, { users: users as UserCache });
  }

  // Orders are processed in this process unless the host brings its own runner (or a worker elsewhere).
  let orderRunner: OrderRunner | null = resolved.orderRunner;
  if (resolved.enableRestApi && !orderRunner) {
    orderRunner = inProcessOrderRunner({
      store: store as Store,
      keyBackends: resolved.keyBackends,
      profiles: resolved.profiles,
      defaultExpiresMs: resolved.defaultExpiresMs,
      logError: resolved.logError,
    });
  }
  // Finished orders from memory for polling clients; fed by the runner when it announces them.
  const orders = resolved.enableRestApi ? new OrderCache(store as Store, orderRunner) : null;
  let runnerStarted: Promise<void> | null = null;
  if (resolved.enableRestApi && orderRunner) {
    runnerStarted = orderRunner.start().catch((e: unknown) => resolved.logError('express-ca-api: order runner failed to start', e));
  }

  const documents = new Map<string, string>();
  const openApiJson = (apiBase: string): string => {
    let doc = documents.get(apiBase);
    if (!doc) {
      doc = serializeJson(buildOpenApiDocument(apiBase, routes.map((r) => r.route)));
      documents.set(apiBase, doc);
    }
    return doc;
  };

  /** Routes whose path matches, with their parameters. */
  const matching = (path: string): { compiled: CompiledRoute; params: Record<string, string> }[] => {
    const found: { compiled: CompiledRoute; params: Record<string, string> }[] = [];
    for (const compiled of routes) {
      const params = matchRoute(compiled, path);
      if (params) found.push({ compiled, params });
    }
    return found;
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

  async function handleApi(req: Request, res: Response, rest: string, apiBase: string): Promise<void> {
    if (servePublic(req, res, rest, apiBase)) return;

    // 1. routing
    const path = `/${rest}`;
    const candidates = matching(path);
    if (candidates.length === 0) {
      if (!path.endsWith('/') && matching(`${path}/`).length > 0) {
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
    const user = await (authenticate as RequestAuthenticator)(req, res);
    if (!user) throw unauthorized();
    const scope = chosen.params.serial ? { caSerial: chosen.params.serial } : undefined;
    if (!(await (permissions as PermissionChecker).hasPermission(user, route.permission, scope))) throw forbidden();

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
    const ctx: ApiContext = {
      user,
      params: chosen.params,
      query,
      body,
      store: store as Store,
      cas: cas as CaCache,
      certificates: certificates as CertificateCache,
      keyBackends: resolved.keyBackends,
      permissions: permissions as PermissionChecker,
      orderRunner,
      orders: orders as OrderCache,
      orderWaitMs: resolved.orderWaitMs,
      profiles: resolved.profiles,
      defaultProfile: resolved.defaultProfile,
      defaultExpiresMs: resolved.defaultExpiresMs,
      apiBase,
      now: new Date(),
    };
    let result;
    try {
      result = await route.handler(ctx, req);
    } catch (e) {
      // Engine validation errors of a body are reported relative to the body parameter.
      const mapped = toHttpError(e, route.body ? ['body', route.body.param] : ['body']);
      if (mapped) throw mapped;
      throw e;
    }
    sendJson(res, result.status, result.body, result.headers, result.json);
  }

  const caApiRouter = function caApiRouter(req: Request, res: Response, next: NextFunction): void {
    if (!resolved.enableRestApi) return next();
    const path = req.path;
    if (!path.startsWith(resolved.apiRoot)) return next();
    const rest = path.slice(resolved.apiRoot.length);
    const apiBase = `${req.baseUrl}${resolved.apiRoot}`;
    handleApi(req, res, rest, apiBase).catch((error: unknown) => {
      let http = toHttpError(error, ['body']);
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
    closing ??= (async () => {
      if (runnerStarted && orderRunner) {
        await runnerStarted;
        await orderRunner.stop();
      }
      if (ownAuthenticator) await ownAuthenticator.close();
      users?.close();
      cas?.close();
      certificates?.close();
      orders?.close();
    })();
    return closing;
  };
  return caApiRouter;
}
