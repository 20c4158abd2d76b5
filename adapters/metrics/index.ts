/**
 * The default `MetricsExposition` (lib/ports/metrics.ts): prom-client, in a `Registry` of its own —
 * never prom-client's global one, so that two routers in one process (or a host's own metrics) do not
 * clash — with prom-client's default process and Node.js metrics in it unless asked not to
 * (docs/operations/metrics.md). Three sources:
 *
 * - the domain events, followed from the latest id at start (event-follower.ts, event-counters.ts):
 *   certificates issued and revoked, orders failed — whatever way in, whichever process;
 * - the store, read when scraped (`MetricsReadings`): pending orders, the connection pool;
 * - the services of this process, through the sink (sink.ts): issuance latency, OCSP answers, CRL
 *   builds, failed and limited logins, ACME orders, 503s of an outage.
 */
import { Registry } from 'prom-client';
import {
  hasEventLog,
  hasMetricsReadings,
  isConnectionLost,
  type CaReader,
  type MetricsExposition,
  type MetricsReadings,
  type MetricsSink,
} from '../../lib/ports';
import { defineMetrics, type CaMetrics } from './definitions';
import { EventCounters } from './event-counters';
import { EventFollower } from './event-follower';
import { registerProcessMetrics } from './process-metrics';
import { promSink } from './sink';

export interface PromMetricsOptions {
  /** The store whose events and readings are counted; its optional capabilities are used where present. */
  store: Pick<CaReader, 'findCaBySerial'>;
  /** How often the outbox is read between scrapes; 0: only when scraped. */
  eventPollMs: number;
  /** prom-client's default metrics (process CPU, memory, event loop lag, GC, …) in the registry. */
  processMetrics: boolean;
  logError: (message: string, error: unknown) => void;
}

export class PromMetrics implements MetricsExposition {
  /** The registry behind the endpoint: a host may register metrics of its own in it. */
  readonly registry = new Registry();
  readonly contentType: string;
  readonly sink: MetricsSink;
  private readonly metrics: CaMetrics;
  private readonly readings: MetricsReadings | null;
  private readonly follower: EventFollower | null = null;

  constructor(private readonly options: PromMetricsOptions) {
    this.contentType = this.registry.contentType;
    this.metrics = defineMetrics(this.registry);
    if (options.processMetrics) registerProcessMetrics(this.registry);
    this.sink = promSink(this.metrics);
    const store = options.store;
    this.readings = hasMetricsReadings(store) ? store.metricsReadings : null;
    if (hasEventLog(store)) {
      const counters = new EventCounters(store, this.readings, this.metrics);
      this.follower = new EventFollower(store, {
        pollMs: options.eventPollMs,
        handle: (events) => counters.count(events),
        onRead: (reached) => this.metrics.databaseUp.set(reached ? 1 : 0),
        logError: options.logError,
      });
      this.follower.start();
    }
    // Nothing to read the database with: no gauge that would claim it is down.
    if (!this.follower && !this.readings) this.registry.removeSingleMetric('ca_api_database_up');
  }

  /** Scrapes that arrive while one is being answered share its answer (the gauges are reset and set again). */
  render(): Promise<string> {
    this.rendering ??= this.renderNow().finally(() => {
      this.rendering = null;
    });
    return this.rendering;
  }
  private rendering: Promise<string> | null = null;

  private async renderNow(): Promise<string> {
    await this.follower?.catchUp();
    await this.readStore();
    return this.registry.metrics();
  }

  async close(): Promise<void> {
    await this.follower?.close();
  }

  /** The gauges that the store answers for now; a failed read leaves them out rather than stale. */
  private async readStore(): Promise<void> {
    if (!this.readings) return;
    const { ordersPending, poolConnections, databaseUp } = this.metrics;
    ordersPending.reset();
    try {
      for (const { caName, count } of await this.readings.pendingOrders()) ordersPending.set({ ca: caName }, count);
      databaseUp.set(1);
    } catch (error) {
      if (isConnectionLost(error)) databaseUp.set(0);
      else this.options.logError('express-ca-api: metrics could not count the pending orders', error);
    }
    await this.readJobs();
    poolConnections.reset();
    const pool = this.readings.connectionPool();
    if (pool) for (const state of ['used', 'free', 'pending'] as const) poolConnections.set({ state }, pool[state]);
  }

  /** Jobs per kind and state (a store that keeps them); a failed read leaves the gauge empty. */
  private async readJobs(): Promise<void> {
    const { jobs } = this.metrics;
    jobs.reset();
    if (!this.readings?.jobCounts) return;
    try {
      for (const { kind, state, count } of await this.readings.jobCounts()) jobs.set({ kind, state }, count);
    } catch (error) {
      if (!isConnectionLost(error)) this.options.logError('express-ca-api: metrics could not count the jobs', error);
    }
  }
}

/** The prom-client exposition of `options.store` (docs/operations/metrics.md). */
export function promMetrics(options: PromMetricsOptions): PromMetrics {
  return new PromMetrics(options);
}
