/**
 * The default `OrderRunner`: turns pending orders into certificates inside the application process.
 *
 * Durable by construction: an order is a row, written `pending` by the sign endpoint. The runner reads
 * a batch of pending rows (up to `batchSize`), signs them all without holding a transaction, then in
 * one short transaction locks those still pending (SELECT ... FOR UPDATE SKIP LOCKED), inserts the
 * certificates and marks the orders `issued` — or `failed` with a readable reason (a few statements
 * per batch, not per order). A database failure of the batch sends its orders through the
 * one-order-per-transaction path (`claimPendingOrders`, signing inside the transaction), so one bad
 * order cannot take the others down with it. A crash before the commit leaves the order `pending`,
 * and the next start picks it up again; several processes sharing one PostgreSQL store disjoint
 * orders. Finished orders are announced after the commit (`onOrderSettled`).
 *
 * It wakes on `notify(order)` (the sign endpoint calls it and hands over the order it wrote, which
 * saves reading it back) and also polls, so orders written by another process (or left by a crash)
 * are found without a notification.
 *
 * It can also finish an order in the sign request's turn (`finishNow`, finish-now.ts): signed at once
 * and written already issued, which the sign endpoint asks for first (docs/DESIGN.md "Orders signed
 * in the request").
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
import type { RunnerContext } from './runner-context';
import { SettledEvents } from './settled-events';
import { processOneOrder } from './single-order';
import { WorkLoop } from '../../work/loop';
import { BACKOFF_POLICIES } from '../../work/policies';

export interface InProcessOrderRunnerOptions {
  store: Store;
  keyBackends: KeyBackends;
  /** The router's `profiles` option (merged into the defaults), or already resolved profiles. */
  profiles?: ProfilesConfig | Profiles;
  /** CA_DEFAULT_EXPIRES in milliseconds (default 100 days). */
  defaultExpiresMs?: number;
  /** How often to look for orders without a notification. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Orders claimed and finished per transaction (stores with `BatchOrderStore`). Default 50. */
  batchSize?: number;
  /**
   * Batches under way at once (stores with `BatchOrderStore`). Default 2: while one batch is being
   * stored, the next one is read and signed, so neither the CPU nor the database waits for the other.
   */
  concurrency?: number;

  /** A transaction that fails this often for one order (database trouble) marks it failed. Default 3. */
  maxAttempts?: number;
  /** Where unexpected errors go (never with key material). Default `console.error`. */
  logError?: (message: string, error: unknown) => void;
  /**
   * Told, for each queued order this runner issues, the seconds from the order's `created` to its
   * certificate stored (README "Metrics"). Orders it finishes in the request are the caller's to time.
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
  const { store, keyBackends } = options;
  const profiles: Profiles = isResolved(options.profiles)
    ? options.profiles
    : resolveProfiles(options.profiles ?? {}, { defaultExpiresMs: options.defaultExpiresMs });
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 50));
  const batching = batchSize > 1 && hasBatchOrders(store);
  const concurrency = batching ? Math.max(1, Math.floor(options.concurrency ?? 2)) : 1;
  const intake = new OrderIntake(batchSize, pollIntervalMs);
  const logError = options.logError ?? ((message: string, error: unknown) => console.error(message, error));
  const settled = new SettledEvents(logError);
  const metrics = options.metrics ?? NO_METRICS;

  const leaseOwner = `in-process:${randomUUID()}`;
  const context: RunnerContext = {
    store,
    leaseOwner,
    signing: { keyBackends, profiles, defaultExpiresMs: options.defaultExpiresMs, intents: store },
    maxAttempts: options.maxAttempts ?? 3,
    attempts: new Map(),
    intake,
    logError,
    announce: (orders) => {
      const now = Date.now();
      for (const o of orders) if (o.status === 'issued') metrics.issuanceCompleted('queued', (now - o.created.getTime()) / 1000);
      settled.announce(orders);
    },
  };
  // Orders finished in the request are announced without timing: the request that placed them times them.
  const immediate: RunnerContext = { ...context, announce: (orders) => settled.announce(orders) };
  const drainOnce = () =>
    drainLanes({
      concurrency,
      batching,
      intake,
      processOne: () => processOneOrder(context),
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
