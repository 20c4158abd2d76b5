/**
 * EST (RFC 7030) as a module (docs/DESIGN.md "Modules (ways in)"): devices enrol at
 * `/.well-known/est/` (the default CA) and `/.well-known/est/{label}/` (docs/guides/est.md), through the one
 * issuance service. Mounted by `createCaApiRouter` with `est.enabled`; the path is RFC 7030's
 * well-known URI (RFC 8615), not under `urlPath`.
 *
 * Errors are plain text with their status (§4.2.3): 400 for a body that is not a signable CSR, 401
 * with `WWW-Authenticate` and an empty body for missing or wrong credentials, 403 without the
 * permission, 404 for an unknown label or a path the table lacks (not the host's 404), 413 for an oversized body, 501 for an operation not offered; a database outage is a
 * 503 with `Retry-After` (lib/http/error-catch.ts).
 */
import type { NextFunction, Request, Response } from 'express';
import { EnrolmentError, retryAfter } from '../enrolment/errors';
import { answerFailure } from '../http/error-catch';
import type { MountedModule, SharedContext } from '../http/modules';
import { compileRoute, matchingRoutes, routeForMethod } from '../http/path-matcher';
import { estError, sendEstError } from './framing';
import { EST_PATH_PARAMS } from './path-params';
import type { EstServices } from './route-types';
import { EST_ROUTES } from './routes';

export const EST_PREFIX = '/.well-known/est';

export function mountEst(services: EstServices, shared: SharedContext): MountedModule {
  const routes = EST_ROUTES.map((route) => compileRoute(route, EST_PATH_PARAMS));
  const failure = { ...shared, send: sendEstError };
  return {
    prefix: `${EST_PREFIX}/`,
    handle(req: Request, res: Response, next: NextFunction): void {
      if (!req.path.startsWith(`${EST_PREFIX}/`)) return next();
      const matches = matchingRoutes(routes, req.path.slice(EST_PREFIX.length));
      // EST's own 404 in its own form, not the host's (Express's echoes the path back as HTML).
      if (matches.length === 0) return sendEstError(res, estError(404, 'Not Found: no EST operation at this path (RFC 7030 §3.2.2).'));
      (async () => {
        const { compiled, params } = routeForMethod(matches, req.method);
        await compiled.route.handler({ req, res, params, services });
      })().catch((error: unknown) =>
        // The enrolment core's refusals (lib/enrolment) answered as EST does: the status and the reason.
        answerFailure(
          failure,
          req,
          res,
          error instanceof EnrolmentError ? estError(error.status, error.message, retryAfter(error)) : error,
        ),
      );
    },
    async close(): Promise<void> {
      // Nothing of its own runs: the CA cache and the authenticator belong to the router.
    },
  };
}
