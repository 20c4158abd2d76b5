/**
 * Ways in (docs/DESIGN.md "Modules (ways in)"): the REST API under `{urlPath}api/`, the revocation
 * endpoints under `{urlPath}`, ACME under `{urlPath}acme/` (lib/acme) and the protocols to come are each
 * a module mounted at a prefix. One Express handler serves a list of them: a request goes to the module with
 * the longest prefix it falls under, or to the host app (`next()`) when it falls under none.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { MetricsSink } from '../ports';
import type { LogNotice } from './client-gone';
import type { LogError } from './error-catch';
import type { OutageLog } from './outage';
import { asPropertyBag } from './property-bag';

/** One way in, mounted. */
export interface MountedModule {
  /** Where it is served, relative to where the router is mounted; starts and ends with `/` (`/django_ca/api/`). */
  readonly prefix: string;
  /**
   * A request whose path starts with `prefix`, or is `prefix` without its slash (the module may
   * redirect it, lib/http/trailing-slash.ts); `next()` hands it to the host app.
   */
  handle(req: Request, res: Response, next: NextFunction): void;
  /** Stop what the module started. Called once, by the router that mounted it. */
  close(): Promise<void>;
}

/**
 * What modules mounted together share: where errors go, one outage log (logged once, not per module),
 * and where their services report what they do (docs/operations/metrics.md; absent: nowhere).
 */
export interface SharedContext {
  logError: LogError;
  /** Warnings that are no failure of ours (a client that hung up mid-request); default `logError`. */
  logNotice?: LogNotice;
  outages: OutageLog;
  metrics?: MetricsSink;
}

export interface ModuleRouter extends RequestHandler {
  /** Close every module, then `afterModules` (what the composition owns). Idempotent. */
  close(): Promise<void>;
}

/** The Express handler serving `modules`. */
export function serveModules(modules: readonly MountedModule[], afterModules: () => Promise<void> = async () => {}): ModuleRouter {
  const byLongestPrefix = [...modules].sort((a, b) => b.prefix.length - a.prefix.length);
  const router = function moduleRouter(req: Request, res: Response, next: NextFunction): void {
    const path = req.path;
    const module = byLongestPrefix.find((m) => path.startsWith(m.prefix) || path === m.prefix.slice(0, -1));
    if (!module) return next();
    // Before any module adds a property: one hidden class for all requests (lib/http/property-bag.ts).
    asPropertyBag(req);
    asPropertyBag(res);
    module.handle(req, res, next);
  } as ModuleRouter;
  let closing: Promise<void> | null = null;
  router.close = () => {
    closing ??= (async () => {
      for (const module of modules) await module.close();
      await afterModules();
    })();
    return closing;
  };
  return router;
}
