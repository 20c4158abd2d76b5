/**
 * The one loop of every kind of background work (docs/DESIGN.md "Work engine"): the REST order
 * runner, the ACME runner (validations, issuance, expiry) and webhook delivery (deliveries, the
 * expiring-certificate scan) each give it a `round` and an interval, and it decides when a round runs:
 *
 * - at `start` (which also resumes work a previous process left behind), then every `intervalMs`;
 * - soon after `poke` (new work was written here: a sign request's order), which the round is told
 *   (`poked`), so that it can take what was handed over without reading the database for work written
 *   elsewhere; a poke during a round sets off exactly one more;
 * - one round at a time, never two at once;
 * - in a database outage (a round fails with a lost connection) it waits longer after each failed
 *   round, by the kind's back-off policy (lib/work/policies.ts), and logs the outage once rather than
 *   every round; a poke still runs a round at once (the database is back if a request wrote to it);
 *   a round that succeeds ends the back-off. Any other failure is logged and the interval kept.
 *
 * Durability is not here but in the rows the rounds claim (the jobs' leases, adapters/store/knex/jobs.ts): a
 * process that dies mid-round leaves its leases to lapse, and another instance's loop finds the work.
 */
import { isConnectionLost } from '../ports';
import { delayMs, type BackoffPolicy } from './backoff';

export interface WorkLoopOptions {
  /** The work's name in log lines: `express-ca-api: <name>`. */
  name: string;
  /** One round of work; `poked`: set off by `poke` (else by the start, the timer or the end of a back-off). */
  round: (poked: boolean) => Promise<unknown>;
  /** The wait between two rounds when nothing pokes the loop. */
  intervalMs: number;
  /** The back-off after rounds that failed with a lost connection. Default: no back-off, the interval. */
  outage?: BackoffPolicy;
  logError: (message: string, error: unknown) => void;
  /** The jitter's source (tests pass their own). */
  random?: () => number;
}

export class WorkLoop {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private notified = false;
  /** Rounds failed in a row by an outage (0: none). */
  private outageFailures = 0;

  constructor(private readonly options: WorkLoopOptions) {}

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stop; resolves when the round under way (if any) has ended. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = null;
  }

  /**
   * A round soon. Not at once: the request that poked has a response to send first, and more work
   * may arrive meanwhile to join the same round.
   */
  poke(): void {
    this.notified = true;
    const wake = this.wake;
    if (wake) setImmediate(wake);
  }

  private async run(): Promise<void> {
    while (this.running) {
      const poked = this.notified;
      this.notified = false;
      await this.options.round(poked).then(
        () => (this.outageFailures = 0),
        (e: unknown) => this.failed(e),
      );
      if (!this.running) break;
      await this.sleep();
    }
  }

  private failed(e: unknown): void {
    const { name, logError, outage } = this.options;
    if (!outage || !isConnectionLost(e)) {
      logError(`express-ca-api: ${name}`, e);
      return;
    }
    if (this.outageFailures === 0)
      logError(`express-ca-api: ${name}: the database is unavailable; the work waits, retried with back-off`, e);
    this.outageFailures++;
  }

  /** The wait before the next round: the interval, or the back-off in an outage. */
  private get nextWaitMs(): number {
    const { outage, intervalMs, random } = this.options;
    if (this.outageFailures === 0 || !outage) return intervalMs;
    return delayMs(outage, this.outageFailures, random ?? Math.random);
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => {
      if (this.notified || !this.running) {
        resolve();
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, this.nextWaitMs);
      timer.unref?.();
      this.wake = done;
    });
  }
}
