/**
 * SCEP (RFC 8894) as a module (docs/DESIGN.md "Modules (ways in)"): devices enrol at
 * `{urlPath}scep` (the default CA) and `{urlPath}scep/{label}` (docs/guides/scep.md), through the
 * enrolment core and the one issuance service.
 *
 * Errors before a reply can be signed are plain text with their status: 400 for an unknown operation
 * or a message that cannot be read (a value the client sent quoted as a short escaped prefix,
 * lib/http/quote.ts), 404 for an unknown label or a path the table lacks (not the host's 404), 405 for another method, 413 for an
 * oversized body; a database outage is a 503 with `Retry-After` (lib/http/error-catch.ts). Once a
 * request's signer, transaction and nonce are known, refusals are signed FAILURE CertReps (HTTP 200).
 */
import type { NextFunction, Request, Response } from 'express';
import { EnrolmentError, retryAfter } from '../enrolment/errors';
import { answerFailure } from '../http/error-catch';
import type { MountedModule, SharedContext } from '../http/modules';
import { compileRoute, matchingRoutes, routeForMethod } from '../http/path-matcher';
import { SCEP_PATH_PARAMS } from './path-params';
import type { ScepServices } from './route-types';
import { SCEP_ROUTES } from './routes';
import { sendPlainTextError } from '../http/plain-text-error';
import { quoteClientValue } from '../http/quote';
import { rawQueryValue, scepError } from './transport';

/** One match per method: the operations share their paths, and `Allow` names each method once. */
const onePerMethod = <M extends { compiled: { route: { method: string } } }>(matches: M[]): M[] =>
  matches.filter((m, i) => matches.findIndex((n) => n.compiled.route.method === m.compiled.route.method) === i);

export function mountScep(prefix: string, services: ScepServices, shared: SharedContext): MountedModule {
  const routes = SCEP_ROUTES.map((route) => compileRoute(route, SCEP_PATH_PARAMS));
  const base = prefix.slice(0, -1); // `/django_ca/scep`
  const failure = { ...shared, send: sendPlainTextError };
  return {
    prefix,
    handle(req: Request, res: Response, next: NextFunction): void {
      if (req.path !== base && !req.path.startsWith(prefix)) return next();
      // `{urlPath}scep` itself, the URL clients are given, is the label-less endpoint as `{urlPath}scep/` is.
      const matches = matchingRoutes(routes, req.path.slice(base.length) || '/');
      // SCEP's own 404 in its own form, not the host's (Express's echoes the path back as HTML).
      if (matches.length === 0) return sendPlainTextError(res, scepError(404, 'Not Found: no SCEP endpoint at this path.'));
      (async () => {
        const rawQuery = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
        const operation = rawQueryValue(rawQuery, 'operation');
        // The path and method choose the routes (405 when the method has none here), the operation one of them.
        const forMethod = matches.filter((m) => m.compiled.route.method === req.method);
        if (forMethod.length === 0) routeForMethod(onePerMethod(matches), req.method);
        const chosen = forMethod.find((m) => m.compiled.route.operation === operation);
        if (!chosen) {
          throw scepError(
            400,
            `Unknown SCEP operation ${quoteClientValue(operation ?? '')}: use GetCACaps, GetCACert or PKIOperation (RFC 8894 §4).`,
          );
        }
        const { compiled, params } = chosen;
        await compiled.route.handler({ req, res, params, message: rawQueryValue(rawQuery, 'message'), services });
      })().catch((error: unknown) =>
        answerFailure(
          failure,
          req,
          res,
          error instanceof EnrolmentError ? scepError(error.status, error.message, retryAfter(error)) : error,
        ),
      );
    },
    async close(): Promise<void> {
      // Nothing of its own runs: the CA cache and the RA keys belong to the router.
    },
  };
}
