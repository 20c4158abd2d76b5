/**
 * The ACME server as a module (docs/DESIGN.md "Modules (ways in)", docs/guides/acme.md): RFC 8555 under
 * `/{urlPath}acme/`, in the original's URL layout, over the one issuing service of lib/ca.
 *
 * A request is matched against the route table (routes.ts); its CA must serve ACME (ca-lookup.ts);
 * a POST is authenticated (authenticate.ts) before its handler runs. Every answer — success or
 * problem — carries what RFC 8555 asks: a fresh `Replay-Nonce` on POSTs and new-nonce (§6.5), the
 * `Link: rel="index"` to the CA's directory on all but the directory (§7.1), `Retry-After` where
 * something is not ready or rate-limited. Errors are `application/problem+json` (§6.7); a database
 * outage is a 503 `serverInternal` with `Retry-After`; anything unexpected is logged and a 500.
 */
import type { NextFunction, Request, Response } from 'express';
import { AcmeAccountCache } from './cache/account-cache';
import { AcmePolicyCache } from './cache/policy-cache';
import type { CaCache } from '../cache/ca-cache';
import type { KeyBackends } from '../ca/key-backends';
import type { Profiles } from '../ca/profiles';
import { HttpError } from '../http/http-errors';
import { isRequestAborted, noteClientGone } from '../http/client-gone';
import type { MountedModule, SharedContext } from '../http/modules';
import { RETRY_AFTER_SECONDS } from '../http/outage';
import { compileRoute, matchingRoutes, routeForMethod } from '../http/path-matcher';
import { redirectToSlash } from '../http/trailing-slash';
import {
  StoreUnavailableError,
  type AcmeNonceStore,
  type AcmeStore,
  type ChallengeValidator,
  type JobStore,
  type SecretBox,
  type SignatureVerifier,
  type Store,
} from '../ports';
import { authenticate } from './authenticate';
import { ACCESS_USER } from '../http/access-log';
import { newOrder } from './handlers/orders';
import { acmeCa } from './ca-lookup';
import type { ResolvedAcmeOptions } from './options';
import { ACME_PATH_PARAMS } from './path-params';
import { AcmeProblem, PROBLEM_CONTENT_TYPE, notFound } from './problems';
import type { AcmeAnswer, AcmeCall, AcmeRoute } from './route-types';
import { ACME_ROUTES } from './routes';
import { AcmeRunner } from './runner';
import { NONCE_TTL_MS, type AcmeServices } from './services';
import { AcmeUrls } from './urls';

export interface AcmeSettings {
  /** `/${urlPath}acme/`, relative to where the router is mounted. */
  prefix: string;
  options: ResolvedAcmeOptions;
  profiles: Profiles;
}

export interface AcmePorts {
  store: Store;
  acme: AcmeStore;
  /** Where ACME's background jobs are (lib/acme/runner.ts). */
  jobs: JobStore;
  nonces: AcmeNonceStore;
  cas: CaCache;
  keyBackends: KeyBackends;
  validator: ChallengeValidator;
  verifier: SignatureVerifier | null;
  secrets: SecretBox | null;
}

type ProblemExtras = { retryAfterSeconds?: number; location?: string };

export function mountAcme(settings: AcmeSettings, ports: AcmePorts, shared: SharedContext): MountedModule {
  const { prefix, options, profiles } = settings;
  const routes = ACME_ROUTES.map((route) => compileRoute(route, ACME_PATH_PARAMS));
  const runner = new AcmeRunner(
    {
      acme: ports.acme,
      store: ports.store,
      jobs: ports.jobs,
      validator: ports.validator,
      signing: { acme: ports.acme, keyBackends: ports.keyBackends, profiles, intents: ports.store },
      logError: shared.logError,
      metrics: shared.metrics,
    },
    { validationAttempts: options.validationAttempts, validationRetryMs: options.validationRetryMs, leaseMs: options.leaseMs },
  );
  runner.start();
  const policies = new AcmePolicyCache(ports.acme);
  const accounts = new AcmeAccountCache(ports.acme);
  const services: AcmeServices = { ...ports, profiles, options, runner, policies, accounts };

  async function nonceHeader(): Promise<Record<string, string>> {
    try {
      return { 'Replay-Nonce': await ports.nonces.createAcmeNonce(NONCE_TTL_MS) };
    } catch {
      return {}; // The database is away: the answer says so; a client asks new-nonce again later.
    }
  }

  function write(res: Response, answer: AcmeAnswer, links: string[], headers: Record<string, string>): void {
    res.status(answer.status);
    for (const [name, value] of Object.entries({ ...headers, ...answer.headers })) res.setHeader(name, value);
    const allLinks = [...links, ...(answer.links ?? [])];
    if (allLinks.length > 0) res.setHeader('Link', allLinks);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (!res.hasHeader('Cache-Control')) res.setHeader('Cache-Control', 'no-store');
    if (answer.body === undefined) {
      res.end();
      return;
    }
    const problem = answer.status >= 400;
    const type = answer.contentType ?? (problem ? PROBLEM_CONTENT_TYPE : 'application/json');
    res.setHeader('Content-Type', type);
    res.end(typeof answer.body === 'string' || Buffer.isBuffer(answer.body) ? answer.body : JSON.stringify(answer.body));
  }

  function problemAnswer(error: unknown, req: Request): AcmeAnswer {
    if (error instanceof AcmeProblem) {
      const extras = error as AcmeProblem & ProblemExtras;
      const headers: Record<string, string> = {};
      if (extras.retryAfterSeconds) headers['Retry-After'] = String(extras.retryAfterSeconds);
      if (extras.location) headers.Location = extras.location;
      return { status: error.status, body: error.body(), headers };
    }
    if (error instanceof HttpError && error.status === 405) {
      return { status: 405, body: new AcmeProblem('malformed', 405, 'Method not allowed.').body(), headers: error.headers };
    }
    if (error instanceof StoreUnavailableError) {
      shared.outages.toHttpError(error);
      const body = new AcmeProblem('serverInternal', 503, 'The service is temporarily unavailable (database). Retry later.').body();
      return { status: 503, body, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } };
    }
    if (isRequestAborted(error)) {
      // The client hung up mid-request: its doing, noted once with its address (lib/http/client-gone.ts); no one reads this.
      noteClientGone(shared.logNotice ?? shared.logError, req, error);
      return { status: 400, body: new AcmeProblem('malformed', 400, 'The request was not received whole.').body() };
    }
    shared.logError(`express-ca-api: ${req.method} ${req.path} failed`, error);
    return { status: 500, body: new AcmeProblem('serverInternal', 500, 'Internal server error').body() };
  }

  async function serve(req: Request, res: Response, route: AcmeRoute, params: Record<string, string>): Promise<void> {
    const now = new Date();
    const withNonce = route.method === 'POST' || route.path.endsWith('/new-nonce/');
    let links: string[] = [];
    let answer: AcmeAnswer;
    try {
      const ca = params.serial === undefined ? null : await acmeCa(ports.cas, params.serial, now);
      const urls = new AcmeUrls(req, prefix, ca?.serial ?? '');
      if (ca && !route.path.startsWith('/directory/')) links = [`<${urls.directory(ca.serial)}>;rel="index"`];
      const call: AcmeCall = { req, params, ca: ca as AcmeCall['ca'], urls, services, jws: null, account: null, now };
      let nonceUsed: Promise<void> = Promise.resolve();
      if (route.method === 'POST' && ca) {
        const authenticated = await authenticate(req, route, ca, urls, services);
        call.jws = authenticated.jws;
        call.account = authenticated.account;
        // The access log's user (docs/operations/logs.md): the account, by the slug its URL carries.
        if (authenticated.account) res.locals[ACCESS_USER] = `acme:${authenticated.account.slug}`;
        nonceUsed = authenticated.nonceUsed;
      }
      // A read's nonce may still be on its way (authenticate.ts): the answer waits for it, and a bad one wins.
      const [handled, used] = await Promise.allSettled([route.handler(call), nonceUsed]);
      if (used.status === 'rejected') throw used.reason;
      if (handled.status === 'rejected') throw handled.reason;
      answer = handled.value;
      if (answer.status === 201 && route.handler === newOrder) shared.metrics?.acmeOrders('created'); // docs/operations/metrics.md
    } catch (error) {
      answer = problemAnswer(error, req);
    }
    write(res, answer, links, withNonce ? await nonceHeader() : {});
  }

  return {
    prefix,
    handle(req: Request, res: Response, next: NextFunction): void {
      if (!req.path.startsWith(prefix)) return next();
      const path = `/${req.path.slice(prefix.length)}`;
      const matches = matchingRoutes(routes, path);
      // The original's URLs end in `/`; without it, a redirect to them, as the original answers (APPEND_SLASH).
      if (matches.length === 0 && !path.endsWith('/') && matchingRoutes(routes, `${path}/`).length > 0) {
        redirectToSlash(req, res, `${req.baseUrl}${req.path}/`);
        return;
      }
      if (matches.length === 0) {
        write(res, problemAnswer(notFound(`${req.path}: No ACME resource here.`), req), [], {});
        return;
      }
      let chosen;
      try {
        chosen = routeForMethod(matches, req.method);
      } catch (error) {
        const answer = problemAnswer(error, req);
        const post = matches.some((m) => m.compiled.route.method === 'POST');
        void (post ? nonceHeader() : Promise.resolve({})).then((headers) => write(res, answer, [], headers));
        return;
      }
      serve(req, res, chosen.compiled.route, chosen.params).catch((error: unknown) => {
        shared.logError(`express-ca-api: ${req.method} ${req.path} failed`, error);
        if (!res.headersSent) res.status(500).end();
      });
    },
    async close(): Promise<void> {
      policies.close();
      accounts.close();
      await runner.close();
    },
  };
}
