/**
 * `createRevocationRouter(options)` (exported by the package entry, lib/index.ts): the revocation
 * endpoints alone, e.g. on a separate, unauthenticated host app without the REST API (docs/guides/revocation.md).
 */
import type { RequestHandler } from 'express';
import { serveModules } from '../http/modules';
import { OutageLog } from '../http/outage';
import { NO_METRICS, type KeyBackend } from '../ports';
import { mountRevocationEndpoints } from './mount';
import type { ResolvedRevocationOptions } from './options';

export interface RevocationRouter extends RequestHandler {
  /** Stop what the router started (store subscriptions, its CA cache). Idempotent. */
  close(): Promise<void>;
  /** The validated options, for introspection and tests. */
  readonly options: ResolvedRevocationOptions;
}

/**
 * The router over validated options and the key backends chosen by the composition root (the
 * package entry adds the default backend when the host brought none); this file imports no adapter.
 */
export function buildRevocationRouter(
  resolved: ResolvedRevocationOptions,
  keyBackends: Readonly<Record<string, KeyBackend>>,
): RevocationRouter {
  const metrics = resolved.metrics ?? NO_METRICS;
  const shared = { logError: resolved.logError, outages: new OutageLog(resolved.logError, Date.now, metrics), metrics };
  const module = mountRevocationEndpoints(
    { prefix: resolved.prefix, ocspSigning: resolved.ocspSigning, profiles: resolved.profiles },
    { store: resolved.store, keyBackends },
    shared,
  );
  const router = serveModules([module]) as RevocationRouter;
  Object.defineProperty(router, 'options', { value: { ...resolved, keyBackends: { ...keyBackends } }, enumerable: true });
  return router;
}
