/**
 * The default `OrderRunner`: turns pending orders into certificates inside the application process.
 *
 * Durable by construction: an order is a row, written `pending` by the sign endpoint. The runner
 * claims one row at a time with `claimPendingOrders` (SELECT ... FOR UPDATE SKIP LOCKED) inside a
 * store transaction, signs, inserts the certificate and marks the order `issued` — or `failed` with a
 * readable reason — in that same transaction. A crash before the commit leaves the order `pending`, and
 * the next start picks it up again; several processes sharing one PostgreSQL claim disjoint orders.
 *
 * It wakes on `notify()` (the sign endpoint calls it) and also polls, so orders written by another
 * process (or left by a crash) are found without a notification.
 */
import { issueFromRequest } from '../../lib/ca/issuance';
import type { KeyBackends } from '../../lib/ca/key-backends';
import { resolveProfiles, type Profiles, type ProfilesConfig } from '../../lib/ca/profiles';
import type { OrderRecord, OrderRunner, Store } from '../../lib/ports';

export interface InProcessOrderRunnerOptions {
  store: Store;
  keyBackends: KeyBackends;
  /** The router's `profiles` option (merged into the defaults), or already resolved profiles. */
  profiles?: ProfilesConfig | Profiles;
  /** CA_DEFAULT_EXPIRES in milliseconds (default 100 days). */
  defaultExpiresMs?: number;
  /** How often to look for orders without a notification. Default 1000 ms. */
  pollIntervalMs?: number;
  /** A transaction that fails this often for one order (database trouble) marks it failed. Default 3. */
  maxAttempts?: number;
  /** Where unexpected errors go (never with key material). Default `console.error`. */
  logError?: (message: string, error: unknown) => void;
}

export interface InProcessOrderRunner extends OrderRunner {
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
  const logError = options.logError ?? ((message: string, error: unknown) => console.error(message, error));

  /** Failed transactions per order id (a database error aborts the transaction that would record it). */
  const attempts = new Map<number, number>();
  let running = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  let notified = false;

  /** Claim and finish one order. False when there was none. */
  async function processOne(): Promise<boolean> {
    let claimed: OrderRecord | null = null;
    try {
      return await store.transaction(async (tx) => {
        const [order] = await tx.claimPendingOrders(1);
        if (!order) return false;
        claimed = order;
        if ((attempts.get(order.id) ?? 0) >= maxAttempts) {
          await tx.markOrderFailed(order.id, 'Could not sign certificate: the database refused to store it.');
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
            await tx.markOrderIssued(order.id, cert.id);
            attempts.delete(order.id);
            return true;
          } catch (e) {
            if (isDatabaseError(e)) throw e; // the transaction is unusable; count it and retry
            reason = reasonOf(e);
          }
        }
        await tx.markOrderFailed(order.id, reason);
        attempts.delete(order.id);
        return true;
      });
    } catch (e) {
      const order = claimed as OrderRecord | null;
      if (order) attempts.set(order.id, (attempts.get(order.id) ?? 0) + 1);
      logError(`express-ca-api: processing order ${order ? order.slug : '(claim)'} failed`, e);
      return order !== null; // try again (the attempt counter ends it); a failed claim waits for the poll
    }
  }

  async function drainOnce(): Promise<number> {
    let n = 0;
    while (await processOne()) n++;
    return n;
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
    },
    notify() {
      notified = true;
      wake?.();
    },
    drain,
  };
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
