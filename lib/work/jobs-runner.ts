/**
 * The job runner (docs/DESIGN.md "Background jobs"): one work loop (lib/work/loop.ts) that claims due
 * jobs (lib/ports/jobs.ts) of the kinds it has handlers for and runs each with its kind's handler.
 *
 * - A handler is registered per kind with its lease, its back-off policy (lib/work/policies.ts) and
 *   its limit of attempts; it returns what became of the job (`JobOutcome`) and the runner settles it:
 *   done, again later (recurring work), retried with back-off, failed past its attempts (until
 *   `ca-admin retry_job`), or let go untouched.
 * - Kinds whose work is found in other tables (a webhook endpoint behind the outbox) enqueue it in
 *   `feed`, before each claim; the claim is the store's one statement.
 * - The jobs of a round are not waited for: the loop keeps claiming while one job is slow, up to
 *   `concurrency` jobs at a time. A job this runner still runs is never claimed again by it (`except`).
 * - A round that fails with a lost connection is an outage: the loop backs off (workOutage policy)
 *   and logs it once. A handler that fails with a lost connection leaves the job's lease to lapse (no
 *   attempt counted: the store could not record one); any other failure is a failed attempt.
 */
import { randomBytes } from 'crypto';
import { isConnectionLost, type JobLease, type JobRecord, type JobStore } from '../ports';
import { delayMs, type BackoffPolicy } from './backoff';
import { WorkLoop } from './loop';
import { BACKOFF_POLICIES } from './policies';

/** What a handler made of its job; the runner writes it. */
export type JobOutcome =
  /** Finished. */
  | { kind: 'done' }
  /** Recurring work that succeeded: due again in `afterMs`. */
  | { kind: 'again'; afterMs: number }
  /**
   * A failed attempt: `attempts` failed attempts now (default: the job's plus one); retried after
   * `delayMs` (default: the kind's policy for `attempts`), or failed when past the limit.
   */
  | { kind: 'retry'; error: string; attempts?: number; delayMs?: number }
  /** Nothing done (the runner is closing): the lease is let go, the job runs again at once. */
  | { kind: 'release' }
  /** Not for this runner now (say, a secret its key cannot open): let go, and left to other runners for `forMs`. */
  | { kind: 'pass'; forMs: number }
  /** The lease was lost (the handler learnt so from a settling write): nothing more to write. */
  | { kind: 'lost' }
  /**
   * The handler's own write ended the job, in the statement that recorded its work (a REST order
   * issued or failed with its job done, an ACME attempt with the change of state it made): nothing
   * more to write.
   */
  | { kind: 'settled' };

export interface JobContext {
  /** The lease the job was claimed with, for writes that hold only while it does. */
  readonly lease: JobLease;
  /** Aborted when the runner closes: requests under way give up (the job runs again later). */
  readonly signal: AbortSignal;
  /** The wait before the next attempt after `attempts` failed ones, by the kind's policy (what `retry` uses). */
  retryDelayMs(attempts: number): number;
  /** Extend the lease by the kind's `leaseMs`; false when it was lost. */
  renew(): Promise<boolean>;
}

export interface JobHandler {
  readonly kind: string;
  /** How long a claim holds the job (its kind's jobs are claimed for this long; renewed by `renew` and by the kind's own settling writes). */
  readonly leaseMs: number;
  /** The back-off between failed attempts. */
  readonly policy: BackoffPolicy;
  /** Failed attempts after which a job fails (a job's own `maxAttempts` first). Default: none, retried for ever. */
  readonly maxAttempts?: number;
  handle(job: JobRecord, context: JobContext): Promise<JobOutcome>;
  /** Enqueue the kind's work found elsewhere, before each claim. */
  feed?(): Promise<unknown>;
}

export interface JobsRunnerOptions {
  /** In log lines: `express-ca-api: <name>`. */
  name: string;
  jobs: JobStore;
  handlers: readonly JobHandler[];
  /** The wait between two claims when nothing pokes the runner. */
  intervalMs: number;
  /** Jobs at a time. */
  concurrency: number;
  logError: (message: string, error: unknown) => void;
  /** The jitter's source (tests pass their own). */
  random?: () => number;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export class JobsRunner {
  /** This runner's name in leases. */
  readonly owner = `jobs-${process.pid}-${randomBytes(6).toString('hex')}`;
  private readonly handlers: ReadonlyMap<string, JobHandler>;
  /** The kinds by the lease they are claimed with: a kind's jobs are claimed for its own `leaseMs`. */
  private readonly byLease: ReadonlyMap<number, string[]>;
  private readonly loop: WorkLoop;
  private readonly running = new Map<number, Promise<void>>();
  /** Jobs a handler passed over → until when this runner leaves them to the others. */
  private readonly passed = new Map<number, number>();
  private readonly closing = new AbortController();
  /** The claim under way, which `close()` waits for (so that no job starts unseen after it). */
  private claiming: Promise<unknown> = Promise.resolve();
  private closed = false;
  private failing = false;

  constructor(private readonly options: JobsRunnerOptions) {
    this.handlers = new Map(options.handlers.map((h) => [h.kind, h]));
    if (this.handlers.size !== options.handlers.length) throw new TypeError(`${options.name}: two handlers of one kind`);
    const byLease = new Map<number, string[]>();
    for (const h of options.handlers) byLease.set(h.leaseMs, [...(byLease.get(h.leaseMs) ?? []), h.kind]);
    this.byLease = byLease;
    this.loop = new WorkLoop({
      name: options.name,
      intervalMs: options.intervalMs,
      round: () => this.round(),
      outage: BACKOFF_POLICIES.workOutage(options.intervalMs),
      logError: options.logError,
      random: options.random,
    });
  }

  start(): this {
    this.loop.start();
    return this;
  }

  /** A claim soon (new work was enqueued here). */
  poke(): void {
    this.loop.poke();
  }

  /** One claim now; resolves when the jobs it started have ended. */
  async runNow(): Promise<void> {
    await this.runOnce().catch(() => 0);
  }

  /**
   * One claim now, outside the loop (a caller that drives its own loop: the REST order runner's
   * lanes); resolves with how many jobs it ran once they have ended. A claim that fails with a lost
   * connection rejects (the caller's outage back-off).
   */
  async runOnce(): Promise<number> {
    const runs = await this.round();
    await Promise.all(runs);
    return runs.length;
  }

  /** Stop claiming, cut the handlers' requests short, and wait for the jobs under way to end. */
  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    await this.loop.stop();
    await this.claiming;
    await Promise.all(this.running.values());
  }

  /** Feed, claim what is free and due, and start each job (not waited for). */
  private async round(): Promise<Promise<void>[]> {
    const free = this.options.concurrency - this.running.size;
    if (this.closed || free <= 0) return [];
    const claimed: JobRecord[] = [];
    try {
      for (const handler of this.handlers.values()) await handler.feed?.();
      const except = [...this.running.keys(), ...this.passedOver()];
      for (const [leaseMs, kinds] of this.byLease) {
        if (claimed.length >= free) break;
        const claim = this.options.jobs.claim(kinds, this.owner, free - claimed.length, leaseMs, except);
        this.claiming = claim.catch(() => undefined);
        claimed.push(...(await claim));
      }
      this.failing = false;
    } catch (error) {
      if (isConnectionLost(error) && !this.closed && claimed.length === 0) throw error; // the loop's outage back-off
      this.reportOnce(`express-ca-api: ${this.options.name} could not claim jobs; retrying`, error);
      if (claimed.length === 0) return [];
    }
    if (this.closed) {
      // Closed while claiming: hand the leases back rather than leave them to run out.
      await Promise.all(claimed.map((job) => this.options.jobs.release({ id: job.id, owner: this.owner }).catch(() => undefined)));
      return [];
    }
    return claimed.map((job) => {
      const run = this.run(job).finally(() => this.running.delete(job.id));
      this.running.set(job.id, run);
      return run;
    });
  }

  private async run(job: JobRecord): Promise<void> {
    const handler = this.handlers.get(job.kind) as JobHandler;
    const lease = { id: job.id, owner: this.owner };
    const { jobs, random } = this.options;
    const context: JobContext = {
      lease,
      signal: this.closing.signal,
      retryDelayMs: (attempts) => delayMs(handler.policy, attempts, random),
      renew: () => jobs.renew(lease, handler.leaseMs),
    };
    let outcome: JobOutcome;
    try {
      outcome = await handler.handle(job, context);
    } catch (error) {
      if (this.closed || isConnectionLost(error)) {
        // Nothing can be recorded now: the lease lapses and the job runs again.
        this.reportOnce(`express-ca-api: ${this.options.name}: job ${job.id} (${job.kind}) interrupted; retrying`, error);
        return;
      }
      outcome = { kind: 'retry', error: messageOf(error) };
    }
    try {
      await this.settle(handler, job, lease, outcome);
    } catch (error) {
      this.reportOnce(`express-ca-api: ${this.options.name}: job ${job.id} (${job.kind}) could not be recorded; retrying`, error);
    }
  }

  private async settle(handler: JobHandler, job: JobRecord, lease: JobLease, outcome: JobOutcome): Promise<void> {
    const { jobs, random } = this.options;
    switch (outcome.kind) {
      case 'done':
        await jobs.complete(lease);
        return;
      case 'again':
        await jobs.reschedule(lease, outcome.afterMs);
        return;
      case 'release':
        await jobs.release(lease);
        return;
      case 'pass':
        this.passed.set(job.id, Date.now() + outcome.forMs);
        await jobs.release(lease);
        return;
      case 'lost':
      case 'settled':
        return;
      case 'retry': {
        const attempts = outcome.attempts ?? job.attempts + 1;
        const limit = job.maxAttempts ?? handler.maxAttempts;
        if (limit !== undefined && attempts >= limit) await jobs.fail(lease, outcome.error, attempts);
        else await jobs.retryLater(lease, outcome.delayMs ?? delayMs(handler.policy, attempts, random), outcome.error, attempts);
        return;
      }
    }
  }

  /** The jobs this runner leaves to the others for now. */
  private passedOver(): number[] {
    const now = Date.now();
    for (const [id, until] of this.passed) if (until <= now) this.passed.delete(id);
    return [...this.passed.keys()];
  }

  /** Log a failure once until things work again (not every interval); a lost connection is an outage, not news. */
  private reportOnce(message: string, error: unknown): void {
    // After close() the store may be closed under a statement still running: that is no failure.
    if (!this.failing && !this.closed && !isConnectionLost(error)) this.options.logError(message, error);
    this.failing = true;
  }
}
