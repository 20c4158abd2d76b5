/**
 * `createCaAdminRouter(options)` (exported by the package entry, lib/index.ts): the admin web
 * interface as Express middleware, mounted on an internal host app (docs/guides/admin-interface.md).
 */
import type { RequestHandler } from 'express';
import { serveModules } from '../http/modules';
import { OutageLog } from '../http/outage';
import { NO_METRICS, type Authenticator, type LoginAttemptLimiter, type PermissionChecker, type Store } from '../ports';
import { mountAdmin } from './mount';
import type { ResolvedAdminOptions } from './options';
import { AdminSessions } from './session';

export interface CaAdminRouter extends RequestHandler {
  /** Stop what the router started (the default authenticator's bcrypt threads). Idempotent. */
  close(): Promise<void>;
  /** The validated options, for introspection and tests. */
  readonly options: ResolvedAdminOptions;
}

export interface AdminPorts {
  authenticator: Authenticator;
  permissions: PermissionChecker;
  /** Where a session reads its user on each request (the package entry gives the cache its authenticator uses). */
  users: Pick<Store, 'getUserById'>;
  loginLimiter: LoginAttemptLimiter;
  /** Closed by `close()` (the defaults the package entry made). */
  owned: readonly { close(): Promise<void> | void }[];
}

/** The router over validated options and chosen ports; this file imports no adapter. */
export function buildCaAdminRouter(resolved: ResolvedAdminOptions, ports: AdminPorts): CaAdminRouter {
  const { store, logError, logger } = resolved;
  const shared = {
    logError,
    // A client that hangs up mid-request is no error of ours (lib/http/client-gone.ts).
    logNotice: logger ? (message: string, fields: Record<string, unknown>) => logger.warn(message, fields) : logError,
    outages: new OutageLog(logError, Date.now, NO_METRICS),
    metrics: NO_METRICS,
  };
  const sessions = new AdminSessions(store.adminSessions, ports.users, resolved);
  const signing = { keyBackends: resolved.keyBackends, profiles: resolved.profiles, defaultProfile: resolved.defaultProfile };
  const services = {
    store,
    sessions,
    ...ports,
    logError,
    signing,
    webhookSecrets: resolved.webhookSecrets,
    eabSecrets: resolved.eabSecrets,
  };
  const module = mountAdmin(resolved, services, shared);
  const router = serveModules([module], async () => {
    for (const resource of ports.owned) await resource.close();
  }) as CaAdminRouter;
  Object.defineProperty(router, 'options', { value: resolved, enumerable: true });
  return router;
}
