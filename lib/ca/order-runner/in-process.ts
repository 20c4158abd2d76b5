/**
 * The default `OrderRunner`: turns pending orders into certificates inside the application process.
 *
 * Durable by construction: an order is a row, written `pending` by the sign endpoint together with
 * its `rest_order` job (lib/ports/jobs.ts), in one statement, the job leased to this runner for the
 * order lease (so other instances leave it to this one until that lapses). The runner takes a batch
 * (up to `batchSize`: the orders handed over, and others claimed through their jobs with
 * `JobStore.claim`, the one claim of every kind of background work), signs them all without holding
 * a transaction, then stores them with one statement for the issued ones and one for the failed ones,
 * each completing the orders' jobs and writing only while this runner holds them. A database failure
 * of a batch lets its jobs go, and the runner takes orders one job at a time (single-order.ts, run by
 * a `JobsRunner`), so one bad order cannot take the others down with it: its failed attempts are
 * counted in its job, with back-off (lib/work/policies.ts `restOrderRetry`), and at `maxAttempts` the
 * order fails with the reason. A crash leaves the order `pending` and its job leased until the lease
 * lapses; then any instance's runner claims it. Finished orders are announced after their statement
 * (`onOrderSettled`).
 *
 * It wakes on `notify(order)` (the sign endpoint calls it and hands over the order it wrote, which
 * saves reading it back) and also polls, so orders written by another process (or left by a crash)
 * are found without a notification.
 *
 * It can also finish an order in the sign request's turn (`finishNow`, finish-now.ts): signed at once
 * and written already issued, with no job (docs/DESIGN.md "Orders signed in the request").
 *
 * This file only wires the parts (docs/DESIGN.md "Orders"): batch.ts and single-order.ts finish
 * orders, lanes.ts runs batches side by side, the work loop (lib/work/loop.ts) decides when to drain, order-intake.ts what
 * each batch takes, settled-events.ts tells listeners. Whether an error is the database's is the
 * store's to say, by type (runner-context.ts `isStoreError`).
 */
import { randomUUID } from 'crypto';
import type { KeyBackends } from '../key-backends';
import { resolveProfiles, type Profiles, type ProfilesConfig } from '../profiles';
import {
  hasBatchOrders,
  hasJobStore,
  NO_METRICS,
  type ImmediateOrders,
  type MetricsSink,
  type OrderRecord,
  type OrderRunner,
  type OrderSettledEvents,
  type Store,
} from '../../ports';
import { processOrderBatch } from './batch';
import { finishNow } from './finish-now';
import { drainLanes } from './lanes';
import { OrderIntake } from './order-intake';
import type { OrderRunnerStore, RunnerContext } from './runner-context';
import { SettledEvents } from './settled-events';
import { restOrderJobHandler } from './single-order';
import { ORDER_LEASE_MS } from '../issuance/place-order';
import { JobsRunner } from '../../work/jobs-runner';
import { WorkLoop } from '../../work/loop';
import { BACKOFF_POLICIES } from '../../work/policies';

export interface InProcessOrderRunnerOptions {
  /** The store; it must take orders through jobs (`BatchOrderStore` and `JobStoreProvider`, as the knex store does). */
  store: Store;
  keyBackends: KeyBackends;
  /** The router's `profiles` option (merged into the defaults), or already resolved profiles. */
  profiles?: ProfilesConfig | Profiles;
  /** CA_DEFAULT_EXPIRES in milliseconds (default 100 days). */
  defaultExpiresMs?: number;
  /** How often to look for orders without a notification. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Orders taken, signed and stored per batch (one statement for the issued ones). Default 50. */
  batchSize?: number;
  /**
   * Batches under way at once. Default 2: while one batch is being stored, the next one is read and
   * signed, so neither the CPU nor the database waits for the other.
   */
  concurrency?: number;

  /**
   * An order the database refuses this often (its job's failed attempts, retried with back-off) is
   * marked failed. Default 3.
   */
  maxAttempts?: number;
  /** Where unexpected errors go (never with key material). Default `console.error`. */
  logError?: (message: string, error: unknown) => void;
  /**
   * Told, for each queued order this runner issues, the seconds from the order's `created` to its
   * certificate stored (docs/operations/metrics.md). Orders it finishes in the request are the caller's to time.
   */
  metrics?: MetricsSink;
}

export interface InProcessOrderRunner extends OrderRunner, OrderSettledEvents, ImmediateOrders {
  /** Process every order that is pending now; resolves when none is left. For tests and tools. */
  drain(): Promise<number>;
}

function isResolved(p: ProfilesConfig | Profiles | undefined): p is Profiles {
  return p instanceof Map;
}

export function inProcessOrderRunner(options: InProcessOrderRunnerOptions): InProcessOrderRunner {
  const { keyBackends } = options;
  if (!hasBatchOrders(options.store) || !hasJobStore(options.store)) {
    throw new TypeError(
      'inProcessOrderRunner: the store must take orders through jobs (BatchOrderStore and JobStore, as the knex store does)',
    );
  }
  const store: OrderRunnerStore = options.store;
  const profiles: Profiles = isResolved(options.profiles)
    ? options.profiles
    : resolveProfiles(options.profiles ?? {}, { defaultExpiresMs: options.defaultExpiresMs });
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 50));
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 2));
  const intake = new OrderIntake(batchSize, pollIntervalMs, ORDER_LEASE_MS);
  const logError = options.logError ?? ((message: string, error: unknown) => console.error(message, error));
  const settled = new SettledEvents(logError);
  const metrics = options.metrics ?? NO_METRICS;

  const leaseOwner = `in-process:${randomUUID()}`;
  const context: RunnerContext = {
    store,
    leaseOwner,
    signing: { keyBackends, profiles, defaultExpiresMs: options.defaultExpiresMs, intents: store },
    maxAttempts: options.maxAttempts ?? 3,
    pollIntervalMs,
    intake,
    logError,
    announce: (orders) => {
      const now = Date.now();
      for (const o of orders) if (o.status === 'issued') metrics.issuanceCompleted('queued', (now - o.created.getTime()) / 1000);
      settled.announce(orders);
    },
  };
  // One order per job, with attempts and back-off in the job: after a batch the database refused.
  // Not started: the lanes run it (`runOnce`), inside the order runner's own loop.
  const singles = new JobsRunner({
    name: 'order runner',
    jobs: store.jobs,
    handlers: [restOrderJobHandler(context)],
    intervalMs: pollIntervalMs,
    concurrency,
    logError,
  });
  // Orders finished in the request are announced without timing: the request that placed them times them.
  const immediate: RunnerContext = { ...context, announce: (orders) => settled.announce(orders) };
  const drainOnce = () =>
    drainLanes({
      concurrency,
      batching: true,
      intake,
      processOne: async () => (await singles.runOnce()) > 0,
      processBatch: () => processOrderBatch(context),
    });

  /**
   * One drain at a time: a second caller waits for the first and then looks again. `list`: read the
   * database for pending orders nobody handed over (order-intake.ts); a drain a poke set off takes
   * the handed-over orders only, unless a listing is due anyway.
   */
  let chain: Promise<unknown> = Promise.resolve();
  function drain(list: boolean): Promise<number> {
    const run = chain.then(() => {
      if (list) intake.listSoon();
      return drainOnce();
    });
    chain = run.catch(() => 0);
    return run;
  }

  const loop = new WorkLoop({
    name: 'order runner',
    round: (poked) => drain(!poked),
    intervalMs: pollIntervalMs,
    outage: BACKOFF_POLICIES.workOutage(pollIntervalMs),
    logError,
  });

  return {
    async start() {
      loop.start();
    },
    async stop() {
      await loop.stop();
      await chain;
      await singles.close();
      intake.clear();
    },
    notify(order?: OrderRecord) {
      // Only complete pending records: anything else is read from the database as usual.
      if (order && order.status === 'pending' && order.request && loop.isRunning) intake.hand(order);
      loop.poke();
    },
    drain: () => drain(true),
    // Only while running: a stopped runner finishes nothing, in the request or otherwise.
    finishNow: (order, ca) => (loop.isRunning ? finishNow(immediate, order, ca) : Promise.resolve(null)),
    // Only while polling: a stopped runner takes nothing, so orders must not wait for it (a lease
    // would hold them from every other instance for ORDER_LEASE_MS).
    get leaseOwner() {
      return loop.isRunning ? leaseOwner : undefined;
    },
    onOrderSettled: (listener) => settled.subscribe(listener),
  };
}
