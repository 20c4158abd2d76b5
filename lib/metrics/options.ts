/**
 * Options of the metrics module (docs/operations/metrics.md), validated when it is constructed (helmet's habit,
 * docs/DESIGN.md "Modules (ways in)"): beside the other modules as `createCaApiRouter`'s `metrics`
 * option, or alone by `createMetricsRouter`. Every mistake is an `OptionsError` naming the option.
 */
import type { Request } from 'express';
import type { LogError } from '../http/error-catch';
import {
  checkBoolean,
  resolveErrorLog,
  checkOptionNames,
  checkStore,
  hasMethods,
  isObjectLike,
  OptionsError,
  show,
  type OptionsEntry,
} from '../http/option-checks';
import { METRICS_SINK_METHODS, type Logger, type MetricsSink, type Store } from '../ports';

/** May this request read the metrics? (docs/operations/metrics.md: who may scrape.) */
export type MetricsAuthorizer = (req: Request) => boolean | Promise<boolean>;

/** The endpoint and what it reads; shared by both ways of mounting it. */
export interface MetricsEndpointOptions {
  /** Where the endpoint answers, relative to where the router is mounted (not under `urlPath`). Default `'/metrics'`. */
  path?: string;
  /**
   * Who may scrape, decided by the host, e.g. `(req) => req.ip === '10.0.0.5'`. With `bearerToken`
   * too, a request must pass both. Default (neither given): only requests made directly from this
   * machine — a loopback peer, with no `Forwarded`, `X-Forwarded-For` or `X-Real-IP` header, so that
   * a reverse proxy on the same machine does not pass the internet's requests on as local ones.
   */
  authorize?: MetricsAuthorizer;
  /** Scrapers must send `Authorization: Bearer <token>` (Prometheus's `authorization` setting). At least 16 characters. */
  bearerToken?: string;
  /** How often the domain events are read between scrapes (ms); 0: only when scraped. Default 5000. */
  eventPollMs?: number;
  /** prom-client's default metrics (process CPU and memory, event loop lag, GC, …) too. Default true. */
  processMetrics?: boolean;
}

/** `createCaApiRouter`'s `metrics` option, when the router serves the endpoint itself. */
export interface MetricsOptions extends MetricsEndpointOptions {
  /** Serve the endpoint beside the router's other modules. Default false: metrics are opt-in. */
  enabled?: boolean;
}

/** Options of `createMetricsRouter`: the endpoint alone, e.g. on an internal port. */
export interface MetricsRouterOptions extends MetricsEndpointOptions {
  /** The store whose domain events and state are read (the same store as the API's). Required. */
  store: Store;
  /** Where unexpected errors are logged (docs/operations/logs.md). Default `console.error`. */
  logger?: Logger;
  /** Deprecated: pass `logger`. Where unexpected errors go (never with credentials); wins over `logger`. */
  logError?: LogError;
}

/** Something that takes the reports of the services: a metrics router made by `createMetricsRouter`. */
export interface MetricsReportTarget {
  readonly sink: MetricsSink;
}

export interface ResolvedMetricsEndpoint {
  path: string;
  authorize: MetricsAuthorizer | null;
  bearerToken: string | null;
  eventPollMs: number;
  processMetrics: boolean;
}

export interface ResolvedMetricsOptions extends ResolvedMetricsEndpoint {
  /** Serve an endpoint (with an exposition of the router's own). */
  enabled: boolean;
  /** Report to this sink instead: a metrics router mounted elsewhere (`metrics: createMetricsRouter(…)`). */
  reportTo: MetricsSink | null;
}

export interface ResolvedMetricsRouterOptions extends ResolvedMetricsEndpoint {
  store: Store;
  logError: LogError;
}

export const DEFAULT_METRICS_PATH = '/metrics';
const DEFAULT_EVENT_POLL_MS = 5000;
const ENDPOINT_OPTIONS = ['path', 'authorize', 'bearerToken', 'eventPollMs', 'processMetrics'];
const ROUTER_OPTIONS = ['store', 'logger', 'logError', ...ENDPOINT_OPTIONS];
/** The store methods the event counters read with (CA names). */
const STORE_METHODS = ['findCaBySerial'];

function checkPath(value: unknown, name: string, entry: OptionsEntry): string {
  if (value === undefined) return DEFAULT_METRICS_PATH;
  if (typeof value !== 'string' || !/^(\/[A-Za-z0-9._~-]+)+$/.test(value) || value.split('/').some((s) => s === '.' || s === '..')) {
    throw new OptionsError(
      `option \`${name}\` must be a path such as '/metrics': '/' and segments of letters, digits, '.', '_', '~' and '-', without a trailing '/' (got ${show(value)})`,
      entry,
    );
  }
  return value;
}

function checkBearerToken(value: unknown, name: string, entry: OptionsEntry): string | null {
  if (value === undefined) return null;
  // RFC 6750 §2.1 b64token; 16 characters at the least, so that a placeholder is not taken for a secret.
  if (typeof value !== 'string' || value.length < 16 || !/^[A-Za-z0-9._~+/-]+=*$/.test(value)) {
    throw new OptionsError(
      `option \`${name}\` must be a token of at least 16 characters (letters, digits, '-', '.', '_', '~', '+', '/'), e.g. openssl rand -hex 32`,
      entry,
    );
  }
  return value;
}

function checkEventPollMs(value: unknown, name: string, entry: OptionsEntry): number {
  if (value === undefined) return DEFAULT_EVENT_POLL_MS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || (value > 0 && value < 100) || value > 3_600_000) {
    throw new OptionsError(`option \`${name}\` must be 0 (read when scraped only) or 100 to 3600000 ms (got ${show(value)})`, entry);
  }
  return value;
}

/** The options both entries share, each named as the host wrote it (`metrics.path`, or `path`). */
function resolveEndpoint(o: MetricsEndpointOptions, prefix: string, entry: OptionsEntry): ResolvedMetricsEndpoint {
  if (o.authorize !== undefined && typeof o.authorize !== 'function') {
    throw new OptionsError(`option \`${prefix}authorize\` must be a function (req) => boolean (got ${show(o.authorize)})`, entry);
  }
  return {
    path: checkPath(o.path, `${prefix}path`, entry),
    authorize: o.authorize ?? null,
    bearerToken: checkBearerToken(o.bearerToken, `${prefix}bearerToken`, entry),
    eventPollMs: checkEventPollMs(o.eventPollMs, `${prefix}eventPollMs`, entry),
    processMetrics: checkBoolean(`${prefix}processMetrics`, o.processMetrics, true, entry),
  };
}

/** A metrics router (or anything with a `MetricsSink` as `sink`), given to report to. */
function isReportTarget(value: unknown): value is MetricsReportTarget {
  return isObjectLike(value) && hasMethods((value as Partial<MetricsReportTarget>).sink, METRICS_SINK_METHODS);
}

/** `createCaApiRouter`'s `metrics` option: endpoint options, or a metrics router to report to. */
export function resolveMetricsOptions(given: unknown): ResolvedMetricsOptions {
  const entry = 'createCaApiRouter';
  if (isReportTarget(given)) return { enabled: false, reportTo: given.sink, ...resolveEndpoint({}, 'metrics.', entry) };
  if (given !== undefined && (!isObjectLike(given) || typeof given === 'function')) {
    const got = typeof given === 'function' ? 'a function without a metrics sink' : show(given);
    throw new OptionsError(`option \`metrics\` must be { enabled: true, … } or a router made by createMetricsRouter (got ${got})`, entry);
  }
  const o = (given ?? {}) as MetricsOptions;
  checkOptionNames(o, ['enabled', ...ENDPOINT_OPTIONS], '{ metrics: { enabled: true } }', entry);
  return { enabled: checkBoolean('metrics.enabled', o.enabled, false, entry), reportTo: null, ...resolveEndpoint(o, 'metrics.', entry) };
}

/** Options of `createMetricsRouter`. */
export function resolveMetricsRouterOptions(options: MetricsRouterOptions): ResolvedMetricsRouterOptions {
  const entry = 'createMetricsRouter';
  checkOptionNames(options, ROUTER_OPTIONS, '{ store }', entry);
  const store = checkStore(options.store, STORE_METHODS, entry);
  if (!store) throw new OptionsError('option `store` is required, e.g. createMetricsRouter({ store: knexStore(db) })', entry);
  return { store, logError: resolveErrorLog(options, entry).logError, ...resolveEndpoint(options, '', entry) };
}
