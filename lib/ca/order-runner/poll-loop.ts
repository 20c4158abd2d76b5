/**
 * When the runner drains: at `start` (which also resumes orders a previous process left pending),
 * on `notify` (the sign endpoint has written an order) and every `pollIntervalMs` without one, so that
 * orders written by another process or left by a crash are found too (docs/DESIGN.md "Orders"). The
 * drain is told whether a poke set it off (`poked`): only the other drains need to read the database
 * for orders nobody handed over. Apart from the draining itself so that start/stop/wake-up can be read
 * on their own.
 *
 * In a database outage (a drain fails with a lost connection) it backs off (lib/work/policies.ts, REST
 * order runner outage): it waits about twice as long after each failed drain, up to 30 s, with equal
 * jitter so that the instances on one database do not all come back in the same turn, and logs the
 * outage once rather than every time. A `poke` (a new order was written: the database is back) still
 * drains at once; a successful drain ends the back-off.
 */
import { isConnectionLost } from '../../ports';
import { delayMs, type BackoffPolicy } from '../../work/backoff';
import { BACKOFF_POLICIES } from '../../work/policies';

export class PollLoop {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private notified = false;
  /** Drains failed in a row by an outage (0: none). */
  private outageFailures = 0;
  private readonly outageBackoff: BackoffPolicy;

  constructor(
    /** `poked`: set off by `poke` (else by start, the timer or the end of a back-off). */
    private readonly drain: (poked: boolean) => Promise<number>,
    private readonly pollIntervalMs: number,
    private readonly logError: (message: string, error: unknown) => void,
    /** The jitter's source (tests pass their own). */
    private readonly random: () => number = Math.random,
  ) {
    this.outageBackoff = BACKOFF_POLICIES.restOrderRunnerOutage(pollIntervalMs);
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stop polling; resolves when the drain under way (if any) has ended. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = null;
  }

  /**
   * Drain soon. Not at once: the request that notified has a response to send first, and other orders
   * may arrive meanwhile to join the same batch.
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
      await this.drain(poked).then(
        () => this.drained(),
        (e: unknown) => this.failed(e),
      );
      if (!this.running) break;
      await this.sleep();
    }
  }

  private drained(): void {
    this.outageFailures = 0;
  }

  private failed(e: unknown): void {
    if (!isConnectionLost(e)) {
      this.logError('express-ca-api: order runner', e);
      return;
    }
    if (this.outageFailures === 0)
      this.logError('express-ca-api: order runner: the database is unavailable; orders wait, retried with back-off', e);
    this.outageFailures++;
  }

  /** The wait before the next drain: the poll interval, or the back-off in an outage. */
  private get nextWaitMs(): number {
    if (this.outageFailures === 0) return this.pollIntervalMs;
    return delayMs(this.outageBackoff, this.outageFailures, this.random);
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
