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
 */
import { certificateFromRequest, issueFromRequest } from '../../lib/ca/issuance';
import type { KeyBackends } from '../../lib/ca/key-backends';
import { resolveProfiles, type Profiles, type ProfilesConfig } from '../../lib/ca/profiles';
import { OrderIntake } from './order-intake';
import {
  hasBatchOrders,
  type CaRecord,
  type NewCertificate,
  type OrderRecord,
  type OrderRunner,
  type OrderSettledEvents,
  type Store,
} from '../../lib/ports';

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
}

export interface InProcessOrderRunner extends OrderRunner, OrderSettledEvents {
  /** Process every order that is pending now; resolves when none is left. For tests and tools. */
  drain(): Promise<number>;
}

/** A readable reason for the order's `error` field (contract D3). */
function reasonOf(error: unknown): string {
  const message = error instanceof Error && error.message ? error.message : 'Could not sign certificate.';
  return message.length > 256 ? `${message.slice(0, 253)}...` : message;
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
  const maxAttempts = options.maxAttempts ?? 3;
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 50));
  const batching = batchSize > 1 && hasBatchOrders(store);
  const concurrency = batching ? Math.max(1, Math.floor(options.concurrency ?? 2)) : 1;
  const intake = new OrderIntake(batchSize, pollIntervalMs);

  const logError = options.logError ?? ((message: string, error: unknown) => console.error(message, error));

  const settledListeners = new Set<(order: OrderRecord) => void>();
  /** Tell the listeners about orders whose transaction has committed. */
  function announce(orders: readonly OrderRecord[]): void {
    for (const order of orders) {
      for (const listener of settledListeners) {
        try {
          listener(order);
        } catch (e) {
          logError('express-ca-api: an order-settled listener failed', e);
        }
      }
    }
  }

  /** Failed transactions per order id (a database error aborts the transaction that would record it). */
  const attempts = new Map<number, number>();
  let running = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  let notified = false;

  /** Claim and finish one order, alone in its transaction. False when there was none. */
  async function processOne(): Promise<boolean> {
    let claimed: OrderRecord | null = null;
    let settled: OrderRecord | null = null;
    try {
      const found = await store.transaction(async (tx) => {
        const [order] = await tx.claimPendingOrders(1);
        if (!order) return false;
        claimed = order;
        if ((attempts.get(order.id) ?? 0) >= maxAttempts) {
          settled = await tx.markOrderFailed(order.id, 'Could not sign certificate: the database refused to store it.');
          attempts.delete(order.id);
          return true;
        }
        const ca = await tx.getCa(order.caId);
        let reason: string;
        if (!ca) reason = 'The certificate authority no longer exists.';
        else {
          try {
            const cert = await issueFromRequest({
              store: tx,
              keyBackends,
              ca,
              request: order.request,
              profiles,
              defaultExpiresMs: options.defaultExpiresMs,
            });
            settled = await tx.markOrderIssued(order.id, cert.id);
            attempts.delete(order.id);
            return true;
          } catch (e) {
            if (isDatabaseError(e)) throw e; // the transaction is unusable; count it and retry
            reason = reasonOf(e);
          }
        }
        settled = await tx.markOrderFailed(order.id, reason);
        attempts.delete(order.id);
        return true;
      });
      if (settled) announce([settled]);
      return found;
    } catch (e) {
      const order = claimed as OrderRecord | null;
      if (order) attempts.set(order.id, (attempts.get(order.id) ?? 0) + 1);
      logError(`express-ca-api: processing order ${order ? order.slug : '(claim)'} failed`, e);
      return order !== null; // try again (the attempt counter ends it); a failed claim waits for the poll
    }
  }

  /**
   * Up to `batchSize` orders in three steps, so that no lock is held and the database is free while
   * certificates are signed:
   *  1. read the pending orders and their CAs (no transaction, no lock);
   *  2. sign them all at once (a signing failure is that order's `failed` reason);
   *  3. lock those still pending (another instance may have taken some: their certificates are
   *     dropped unstored, as if a transaction had rolled back), insert the certificates and mark the
   *     orders — with one statement when every order was signed (`issueOrders`), else in one short
   *     transaction that also records the failures.
   * If the database refuses anything in step 3, the transaction rolls back as a whole and the caller
   * redoes those orders one per transaction — the order at fault is then isolated (and failed by the
   * attempt counter) while the others are issued.
   */
  async function processBatch(): Promise<{ ok: boolean; claimed: number }> {
    let claimed = 0;
    let settled: OrderRecord[] = [];
    let taken: OrderRecord[] = [];
    try {
      if (!hasBatchOrders(store)) throw new Error('the store cannot finish batches');
      const candidates = await intake.take(store);
      taken = candidates;
      if (candidates.length === 0) return { ok: true, claimed: 0 };
      const cas = new Map<number, CaRecord | null>();
      for (const order of candidates) if (!cas.has(order.caId)) cas.set(order.caId, await store.getCa(order.caId));
      // All orders at once: signatures that run on the thread pool (RSA, see the key backend) then
      // use every core while this thread builds the next certificate.
      const outcomes = await Promise.all(
        candidates.map(async (order): Promise<Outcome> => {
          const ca = cas.get(order.caId) ?? null;
          if (!ca) return { order, reason: 'The certificate authority no longer exists.', error: null };
          try {
            const request = order.request;
            return { order, certificate: await certificateFromRequest({ keyBackends, ca, request, profiles, defaultExpiresMs: options.defaultExpiresMs }) };
          } catch (e) {
            return { order, error: e, reason: reasonOf(e) };
          }
        }),
      );
      const signed = outcomes.filter((o): o is Extract<Outcome, { certificate: NewCertificate }> => 'certificate' in o);
      if (signed.length === outcomes.length && store.issueOrders) {
        // Every order signed: one statement stores them all (no transaction round trips).
        const when = new Date();
        const stored = await store.issueOrders(signed.map((o) => ({ orderId: o.order.id, certificate: o.certificate })), when);
        const byOrder = new Map(signed.map((o) => [o.order.id, o]));
        claimed = stored.length;
        settled = stored.map(({ orderId, certificateId }) => {
          const { order, certificate } = byOrder.get(orderId) as (typeof signed)[number];
          return issuedOrder(order, certificateId, certificate.serial, when);
        });
      } else {
        await store.transaction(async (tx) => {
          if (!hasBatchOrders(tx)) throw new Error('the store bound to the transaction cannot finish batches');
          const mine = new Set(await tx.claimOrdersById(candidates.map((o) => o.id)));
          claimed = mine.size;
          const certificates: NewCertificate[] = [];
          const issued: OrderRecord[] = [];
          const failed: { order: OrderRecord; reason: string }[] = [];
          for (const outcome of outcomes) {
            if (!mine.has(outcome.order.id)) continue;
            if ('certificate' in outcome) {
              certificates.push(outcome.certificate);
              issued.push(outcome.order);
            } else {
              if (isDatabaseError(outcome.error)) throw outcome.error;
              failed.push(outcome);
            }
          }
          const ids = await tx.insertCertificateIds(certificates);
          const when = new Date();
          await tx.markOrdersIssued(issued.map((order, i) => ({ orderId: order.id, certificateId: ids[i] })), when);
          settled = issued.map((order, i) => issuedOrder(order, ids[i], certificates[i].serial, when));
          for (const { order, reason } of failed) settled.push(await tx.markOrderFailed(order.id, reason));
        });
      }
      announce(settled);
      return { ok: true, claimed };
    } catch (e) {
      logError('express-ca-api: a batch of orders failed; retrying them one per transaction', e);
      return { ok: false, claimed: Math.max(claimed, 1) };
    } finally {
      intake.release(taken);
    }
  }

  /** `concurrency` lanes, each taking batches until nothing is left that another lane does not hold. */
  async function drainOnce(): Promise<number> {
    const counts = await Promise.all(Array.from({ length: concurrency }, drainLane));
    return counts.reduce((a, b) => a + b, 0);
  }

  async function drainLane(): Promise<number> {
    let n = 0;
    let singles = 0; // orders to take one per transaction (after a failed batch) before batching again
    for (;;) {
      if (singles > 0 || !batching) {
        if (!(await processOne())) return n;
        n++;
        singles--;
        continue;
      }
      await yieldToEventLoop();
      const batch = await processBatch();
      if (!batch.ok) {
        singles = Math.max(1, batch.claimed);
        continue;
      }
      if (batch.claimed === 0) {
        if (!intake.busy) return n;
        await intake.released(); // another lane holds what is pending: look again when it is done
        continue;
      }
      n += batch.claimed;
    }
  }

  /** One drain at a time: a second caller waits for the first and then looks again. */
  let chain: Promise<unknown> = Promise.resolve();
  function drain(): Promise<number> {
    const run = chain.then(drainOnce);
    chain = run.catch(() => 0);
    return run;
  }

  function sleep(): Promise<void> {
    return new Promise((resolve) => {
      if (notified || !running) {
        notified = false;
        resolve();
        return;
      }
      const timer = setTimeout(done, pollIntervalMs);
      timer.unref?.();
      function done(): void {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });
  }

  async function run(): Promise<void> {
    while (running) {
      notified = false;
      await drain().catch((e: unknown) => logError('express-ca-api: order runner', e));
      if (!running) break;
      await sleep();
    }
  }

  return {
    async start() {
      if (running) return;
      running = true;
      // The first pass also resumes orders a previous process left pending.
      loop = run();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
      loop = null;
      await chain;
      intake.clear();
    },
    notify(order?: OrderRecord) {
      // Only complete pending records: anything else is read from the database as usual.
      if (order && order.status === 'pending' && order.request && running) intake.hand(order);
      notified = true;
      // Not at once: the request that notified has a response to send first, and other orders may
      // arrive meanwhile to join the same batch.
      const w = wake;
      if (w) setImmediate(w);
    },
    drain,
    onOrderSettled(listener) {
      settledListeners.add(listener);
      return () => settledListeners.delete(listener);
    },
  };
}

/** What signing one order of a batch came to. */
type Outcome = { order: OrderRecord; certificate: NewCertificate } | { order: OrderRecord; reason: string; error: unknown };

/** The order as `markOrdersIssued` left it in the database. */
function issuedOrder(order: OrderRecord, certificateId: number, certificateSerial: string, when: Date): OrderRecord {
  return { ...order, status: 'issued', certificateId, certificateSerial, error: null, leaseOwner: null, leaseExpires: null, updated: when };
}

/**
 * Let the event loop run (sockets, timers) before going on. Embedded PGlite answers queries without
 * real I/O, so a worker's transaction is one long chain of promise jobs; without this, responses
 * already computed (their sockets are uncorked in a later tick) would wait for the whole batch.
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Errors of the database driver (not of the rules): the transaction cannot record a failure. */
function isDatabaseError(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const name = (e as { name?: unknown }).name;
  if (name === 'CaError' || name === 'X509Error') return false;
  // pg and PGlite errors carry a SQLSTATE `code` of five characters; store errors are typed.
  const code = (e as { code?: unknown }).code;
  return (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) || name === 'StoreConflictError' || name === 'StoreNotFoundError';
}
