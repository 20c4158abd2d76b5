/**
 * The admin web interface as a module (docs/DESIGN.md "Modules (ways in)"), served under its prefix:
 * security headers on every answer; plain HTTP refused from other machines (`requireTls`); the
 * route table; every query parameter checked (query-check.ts: a bad one is a 400, never a query that
 * fails in the store); the session from its cookie (pages without one send the browser to the sign-in
 * page); for every POST the form, and for a signed-in POST the same-origin check and the session's
 * CSRF token — a forged or stale form is 403 and changes nothing; then, for a route the table marks
 * `stepUp`, the step-up: without the password typed within `session.stepUpMs` the request changes
 * nothing and goes to the re-authentication page (one place, so no sensitive route can skip it).
 * Errors are pages with their status, never a stack trace; a database outage is a 503
 * (lib/http/error-catch.ts).
 */
import type { NextFunction, Request, Response } from 'express';
import { answerFailure } from '../http/error-catch';
import { HttpError, notFound } from '../http/http-errors';
import type { MountedModule, SharedContext } from '../http/modules';
import { compileRoute, matchingRoutes, routeForMethod } from '../http/path-matcher';
import type { AdminContext, AdminServices } from './context';
import { readCookie, SESSION_COOKIE } from './cookies';
import { comesFromAnotherSite, tokenMatches } from './csrf';
import { readForm } from './form';
import { checkQuery } from './query-check';
import { setSecurityHeaders } from './headers';
import { redirect, sendMessagePage } from './page';
import { ADMIN_PATH_PARAMS, ADMIN_ROUTES } from './routes';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

const TITLES: Record<number, string> = {
  400: 'Bad request',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Not allowed',
  413: 'Too large',
  429: 'Too many attempts',
  503: 'Unavailable',
};

/** A route's path with its `{param}`s filled in (their patterns admit no `/`, `?`, `#` or `%`). */
const withParams = (path: string, params: Record<string, string>): string =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? '');

export function mountAdmin(
  settings: { prefix: string; requireTls: boolean },
  services: AdminServices,
  shared: SharedContext,
): MountedModule {
  const routes = ADMIN_ROUTES.map((route) => compileRoute(route, ADMIN_PATH_PARAMS));
  const { prefix } = settings;
  return {
    prefix,
    handle(req: Request, res: Response, _next: NextFunction): void {
      const base = `${req.baseUrl}${prefix}`;
      if (req.path === prefix.slice(0, -1)) return redirect(res, base);
      const matches = matchingRoutes(routes, req.path.slice(prefix.length));
      const ctx: AdminContext = { req, res, params: {}, services, base, session: null, form: null };
      const failure = {
        ...shared,
        send: (_res: Response, e: HttpError) => {
          for (const [name, value] of Object.entries(e.headers)) res.setHeader(name, value);
          sendMessagePage(ctx, e.status, TITLES[e.status] ?? 'Error', e.message);
        },
      };
      (async () => {
        setSecurityHeaders(res, req.secure);
        if (settings.requireTls && !req.secure && !LOOPBACK.has(req.ip ?? '')) {
          throw new HttpError(
            403,
            'The admin interface is served over HTTPS only (or to this machine). See docs/guides/admin-interface.md, requireTls.',
          );
        }
        if (matches.length === 0) throw notFound();
        const { compiled, params } = routeForMethod(matches, req.method);
        ctx.params = params;
        const route = compiled.route;
        checkQuery(req.query as Record<string, unknown>, route.query);
        if (route.access !== 'asset') ctx.session = await services.sessions.load(readCookie(req, SESSION_COOKIE));
        if (route.access === 'session' && !ctx.session) {
          if (req.method === 'POST') throw new HttpError(403, 'Your session has ended. Please sign in again.');
          return redirect(res, `${base}login?${new URLSearchParams({ next: req.originalUrl })}`);
        }
        if (req.method === 'POST') {
          ctx.form = await readForm(req);
          if (ctx.session && route.access === 'session') {
            if (comesFromAnotherSite(req) || !tokenMatches(ctx.form.get('_csrf'), ctx.session.record.csrfToken)) {
              throw new HttpError(
                403,
                'This form had expired or came from another site; nothing was changed. Reload the page and try again.',
              );
            }
          }
        }
        if (route.stepUp && ctx.session && !services.sessions.steppedUp(ctx.session)) {
          // Back to the page the form is on: an action's own URL may have no page (webhooks/{id}/rotate: 405).
          const back = req.method === 'POST' ? `${base}${withParams(route.stepUp.formPage, params)}` : req.originalUrl;
          return redirect(res, `${base}reauth?${new URLSearchParams({ next: back })}`);
        }
        await route.handler(ctx);
      })().catch((error: unknown) => answerFailure(failure, req, res, error));
    },
    async close(): Promise<void> {
      // Nothing of its own runs: sessions are swept at sign-in.
    },
  };
}
