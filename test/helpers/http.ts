/**
 * Shared helpers for HTTP-level tests: an Express app around `createCaApiRouter`, Basic
 * Authorization headers, and a tiny in-memory user store for tests whose subject is not the store.
 */
import express, { type Express } from 'express';
import * as bcrypt from 'bcryptjs';
import { randomBytes } from 'crypto';
import { createCaApiRouter, type CaApiRouter, type CaApiRouterOptions } from '../../lib';
// Not public: the second argument of createCaApiRouter, for tests of the infrastructure.
import type { CreateCaApiRouterInternals } from '../../lib/router';
import { HttpError } from '../../lib/http/http-errors';
import type { OrderRunner, Permission, Store, UserRecord } from '../../lib/ports';
import type { ApiHandler, RouteDefinition } from '../../lib/api/route-types';
import { observeResponse, pathUnderRoot, recordResponse } from './response-validator';

/**
 * A stand-in handler for tests of what happens before a handler (routing, authentication,
 * permissions): reaching it answers 501 `{"detail": "Not implemented"}`.
 */
export const notImplementedHandler: ApiHandler = async () => {
  throw new HttpError(501, 'Not implemented');
};

/** `Basic base64(user:password)` */
export function basicAuth(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/** Headers object with a Basic Authorization header. */
export function authHeader(username: string, password: string): { Authorization: string } {
  return { Authorization: basicAuth(username, password) };
}

export interface TestApp {
  app: Express;
  router: CaApiRouter;
  close(): Promise<void>;
}

/**
 * An order runner that does nothing: infrastructure tests have no orders, and the default in-process
 * runner would poll a store that (for `memoryUserStore`) has no order tables.
 */
export function idleOrderRunner(): OrderRunner {
  return { start: async () => {}, stop: async () => {}, notify: () => {} };
}

/** Requests answered by a stand-in handler (tests of the infrastructure), see `responseValidation`. */
const STAND_IN = Symbol('stand-in handler ran');

/**
 * Test-only middleware in front of the router: every response under the API root is captured (its
 * `res.end` wrapped) and checked against the OpenAPI document by test/helpers/response-validator.ts;
 * a violation fails the running test (that module's `afterEach`). Being part of `buildApp` (which the
 * API fixture uses too), it covers every HTTP test without touching any test.
 *
 * Output of stand-in handlers that a test puts into the route table (`internals.routes`, e.g. an echo
 * handler) is not the API's and is not checked; the router's own answers around them (401, 403,
 * 404, 413, 422, ...) are.
 */
function responseValidation(
  router: CaApiRouter,
  routes: readonly RouteDefinition[] | undefined,
): (req: express.Request, res: express.Response, next: express.NextFunction) => void {
  return (req, res, next) => {
    const path = router.options.enableRestApi ? pathUnderRoot(req.path, router.options.apiRoot) : null;
    if (path !== null) {
      const method = req.method;
      observeResponse(res, (status, contentType, body, headers) => {
        if ((req as unknown as Record<symbol, boolean>)[STAND_IN]) return;
        recordResponse({ method, path, status, contentType, body, headers }, routes);
      });
    }
    next();
  };
}

/** The same routes, with handlers that mark the request as answered by a stand-in. */
function markStandIns(routes: readonly RouteDefinition[]): RouteDefinition[] {
  return routes.map((r) => ({
    ...r,
    handler: (ctx, req) => {
      (req as unknown as Record<symbol, boolean>)[STAND_IN] = true;
      return r.handler(ctx, req);
    },
  }));
}

/**
 * An app with the router mounted (at `mountPath` if given) and a host route behind it that answers
 * `{"host": true}` for anything the router passes on. Responses are checked against the OpenAPI
 * document (see `responseValidation`).
 */
export function buildApp(options: CaApiRouterOptions, internals: CreateCaApiRouterInternals = {}, mountPath?: string): TestApp {
  const app = express();
  const routes = internals.routes ? markStandIns(internals.routes) : undefined;
  // Tests whose subject is not key storage get a throw-away key-encryption key.
  const env = { CA_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
  const router = createCaApiRouter({ env, orderRunner: idleOrderRunner(), ...options }, { ...internals, ...(routes ? { routes } : {}) });
  const validation = responseValidation(router, internals.routes);
  if (mountPath) app.use(mountPath, validation, router);
  else app.use(validation, router);
  app.use((req, res) => {
    res.status(299).json({ host: true, path: req.originalUrl });
  });
  return { app, router, close: () => router.close() };
}

/** bcrypt hash for test users; cost 4 keeps tests fast where the cost is not the subject. */
export function hashPassword(password: string, cost = 4): string {
  return bcrypt.hashSync(password, cost);
}

export interface MemoryUserStore extends Store {
  readonly users: UserRecord[];
  /** How often each method was called (to show what a request did, e.g. no store access). */
  readonly calls: Record<string, number>;
}

/**
 * A Store holding only users (the part auth needs). Any other method throws, so a test notices
 * immediately when a request reaches further than it should.
 */
export function memoryUserStore(): MemoryUserStore {
  const users: UserRecord[] = [];
  const calls: Record<string, number> = {};
  let clock = Date.now();
  const tick = (): Date => new Date(++clock); // strictly increasing `updated` stamps
  const copy = (u: UserRecord | undefined): UserRecord | null => (u ? { ...u, permissions: [...u.permissions] } : null);
  const impl: Partial<Store> = {
    async createUser(username: string, passwordHash: string, permissions: Permission[]) {
      const user: UserRecord = { id: users.length + 1, username, passwordHash, permissions: [...permissions], updated: tick() };
      users.push(user);
      return copy(user) as UserRecord;
    },
    async findUser(username: string) {
      return copy(users.find((u) => u.username === username));
    },
    async getUserById(id: number) {
      return copy(users.find((u) => u.id === id));
    },
    async updateUser(id: number, patch: { passwordHash?: string; permissions?: Permission[] }) {
      const user = users.find((u) => u.id === id);
      if (!user) throw new Error(`no user ${id}`);
      if (patch.passwordHash !== undefined) user.passwordHash = patch.passwordHash;
      if (patch.permissions !== undefined) user.permissions = [...patch.permissions];
      user.updated = tick();
      return copy(user) as UserRecord;
    },
    async close() {},
    // The router's housekeeping at start (lib/ca/issuance/interrupted.ts): a store of users keeps no intents.
    async settleInterruptedIntents() {
      return 0;
    },
  };
  return new Proxy(impl, {
    get(target, prop) {
      if (prop === 'users') return users;
      if (prop === 'calls') return calls;
      if (prop === 'then') return undefined; // not a thenable
      if (prop === 'actingAs') return undefined; // records no actors: an optional capability it lacks
      const name = String(prop);
      const fn = (target as Record<string, unknown>)[name];
      if (name === 'settleInterruptedIntents') return fn; // not a request's work: not counted
      return async (...args: unknown[]) => {
        calls[name] = (calls[name] ?? 0) + 1;
        if (typeof fn !== 'function') throw new Error(`memoryUserStore: ${name} is not implemented`);
        return (fn as (...a: unknown[]) => Promise<unknown>)(...args);
      };
    },
  }) as MemoryUserStore;
}
