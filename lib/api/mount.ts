/**
 * The REST API as a module (docs/DESIGN.md "Modules (ways in)"): django-ca's API under
 * `/{urlPath}api/`, mounted by `createCaApiRouter` (lib/router.ts).
 *
 * Request processing order (docs/COMPATIBILITY.md §1.2), which decides which error a client sees:
 *   1. routing — unknown under the API root → 404; a path that exists with a trailing slash → redirect
 *   2. method — a path that exists with another method → 405 with `Allow`
 *   3. authentication → 401 (with `WWW-Authenticate`, D5), then permission → 403
 *   4. body: too large → 413, not JSON → 400; then query + body validation → 422 (all problems at once)
 *   5. the handler
 * Everything under the API root answers JSON (D11), including 404/405, a database outage (503 with
 * `Retry-After`) and unexpected errors (500, logged without request details that could hold
 * credentials): the shared kit's answers and error catch (lib/http). API answers are never stored by
 * caches (`Cache-Control: no-store`: they are per user and may be sensitive).
 */
import type { NextFunction, Request, Response } from 'express';
import { answerFailure, type ErrorCatch } from '../http/error-catch';
import { forbidden, notFound, unprocessable, type ValidationItem } from '../http/http-errors';
import { NO_BODY, readJsonBody } from '../http/body';
import type { MountedModule, SharedContext } from '../http/modules';
import { compileRoute, matchingRoutes, routeForMethod } from '../http/path-matcher';
import { sendJson } from '../http/send';
import { redirectToSlash } from '../http/trailing-slash';
import { BASIC_REALM, toHttpError, unauthorized } from './api-errors';
import { basicAuthenticator } from '../http/basic-auth';
import { docsEndpoints } from './docs-endpoints';
import { sendJsonStream } from './json-stream';
import type { ResolvedRestApiOptions } from './options';
import { REST_PATH_PARAMS } from './path-params';
import type { ApiContext, RouteDefinition } from './route-types';
import { ROUTES } from './routes';
import { startServices, type RestApiPorts } from './services';
import { compileAll, pathTextItems, validateBody, validateQuery } from './validation';
import { ACCESS_USER } from '../http/access-log';
import { recordLockout } from '../audit/lockouts';

export type { RestApiPorts } from './services';

export interface RestApiSettings extends ResolvedRestApiOptions {
  /** `/${urlPath}api/`: where the API is served, relative to where the router is mounted. */
  apiRoot: string;
}

/** Mount the REST API: `routeTable` replaces lib/api/routes.ts only in tests of the infrastructure. */
export function mountRestApi(
  settings: RestApiSettings,
  ports: RestApiPorts,
  shared: SharedContext,
  routeTable: readonly RouteDefinition[] = ROUTES,
): MountedModule {
  const routes = routeTable.map((route) => compileRoute(route, REST_PATH_PARAMS));
  compileAll(); // a broken schema fails here, not in a request
  const running = startServices(settings, ports, shared.logError, shared.metrics);
  const authenticate = basicAuthenticator(ports.authenticator, BASIC_REALM, ports.loginLimiter, shared.metrics, (user, address, lockout) =>
    recordLockout(ports.store, user, address, lockout, shared.logError),
  );
  const serveDocs = docsEndpoints(routes.map((r) => r.route));
  const failure: ErrorCatch = { ...shared, toHttpError: (error) => toHttpError(error, ['body']) };
  const prefix = settings.apiRoot;

  async function serve(req: Request, res: Response, rest: string, apiBase: string): Promise<void> {
    if (serveDocs(req, res, rest, apiBase)) return;

    // 1. routing
    const path = `/${rest}`;
    const candidates = matchingRoutes(routes, path);
    if (candidates.length === 0) {
      if (!path.endsWith('/') && matchingRoutes(routes, `${path}/`).length > 0) return redirectToSlash(req, res, `${apiBase}${rest}/`);
      throw notFound();
    }
    // 2. method
    const chosen = routeForMethod(candidates, req.method);
    const route = chosen.compiled.route;

    // 3. authentication, then permission
    const user = await authenticate(req, res);
    if (!user) throw unauthorized();
    res.locals[ACCESS_USER] = user.username;
    const badPath = pathTextItems(chosen.params);
    if (badPath.length) throw unprocessable(badPath);
    const scope = chosen.params.serial ? { caSerial: chosen.params.serial } : undefined;
    if (!(await ports.permissions.hasPermission(user, route.permission, scope))) throw forbidden();

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
      const parsed = await readJsonBody(req, settings.bodyLimit);
      const b = validateBody(route.body.schema, route.body.param, parsed);
      if (b.ok) body = b.value;
      else items.push(...b.items);
    } else if (route.method !== 'GET') {
      await readJsonBody(req, settings.bodyLimit).catch(() => NO_BODY); // drain; the body is ignored
    }
    if (items.length) throw unprocessable(items);

    // 5. the handler
    const ctx: ApiContext = {
      user,
      address: req.ip ?? null,
      params: chosen.params,
      query,
      body,
      now: new Date(),
      apiBase,
      services: running.services,
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
    // Unpaged lists: written batch by batch with back-pressure (lib/api/json-stream.ts).
    if (result.stream) return sendJsonStream(res, result.status, result.headers ?? {}, result.stream);
    sendJson(res, result.status, result.body, result.headers, result.json);
  }

  return {
    prefix,
    handle(req: Request, res: Response, _next: NextFunction): void {
      const apiBase = `${req.baseUrl}${prefix}`;
      // `{api_root}` without its slash: redirected like every other route (APPEND_SLASH), not the host's 404.
      if (req.path === prefix.slice(0, -1)) return redirectToSlash(req, res, apiBase);
      serve(req, res, req.path.slice(prefix.length), apiBase).catch((error: unknown) => answerFailure(failure, req, res, error));
    },
    close: () => running.close(),
  };
}
