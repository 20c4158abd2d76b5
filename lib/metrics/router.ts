/**
 * `createMetricsRouter(options)` (exported by the package entry, lib/index.ts): the metrics endpoint
 * alone, e.g. on an internal port away from the public API (docs/operations/metrics.md). Its `sink` takes the
 * reports of the routers of the same process: pass the router as their `metrics` option.
 */
import type { RequestHandler } from 'express';
import { serveModules } from '../http/modules';
import { OutageLog } from '../http/outage';
import type { MetricsExposition, MetricsSink } from '../ports';
import { mountMetrics } from './mount';
import type { ResolvedMetricsRouterOptions } from './options';

export interface MetricsRouter extends RequestHandler {
  /**
   * Where the services of this process report (issuance latency, OCSP answers, CRL builds, logins,
   * ACME orders, 503s): give this router as `createCaApiRouter`'s and `createRevocationRouter`'s
   * `metrics` option.
   */
  readonly sink: MetricsSink;
  /** Stop reading the store (the domain events). Idempotent. */
  close(): Promise<void>;
  /** The validated options, for introspection and tests. */
  readonly options: ResolvedMetricsRouterOptions;
}

/** The router over validated options and the exposition chosen by the composition root; this file imports no adapter. */
export function buildMetricsRouter(resolved: ResolvedMetricsRouterOptions, exposition: MetricsExposition): MetricsRouter {
  const shared = {
    logError: resolved.logError,
    outages: new OutageLog(resolved.logError, Date.now, exposition.sink),
    metrics: exposition.sink,
  };
  const router = serveModules([mountMetrics(resolved, exposition, shared)], () => exposition.close()) as unknown as MetricsRouter;
  Object.defineProperty(router, 'sink', { value: exposition.sink, enumerable: true });
  Object.defineProperty(router, 'options', { value: resolved, enumerable: true });
  return router;
}
