/**
 * When the runner drains: at `start` (which also resumes orders a previous process left pending),
 * on `notify` (the sign endpoint has written an order) and every `pollIntervalMs` without one, so that
 * orders written by another process or left by a crash are found too (docs/DESIGN.md "Orders"). Apart
 * from the draining itself so that start/stop/wake-up can be read on their own.
 */
export class PollLoop {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private notified = false;

  constructor(
    private readonly drain: () => Promise<number>,
    private readonly pollIntervalMs: number,
    private readonly logError: (message: string, error: unknown) => void,
  ) {}

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
      this.notified = false;
      await this.drain().catch((e: unknown) => this.logError('express-ca-api: order runner', e));
      if (!this.running) break;
      await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => {
      if (this.notified || !this.running) {
        this.notified = false;
        resolve();
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, this.pollIntervalMs);
      timer.unref?.();
      this.wake = done;
    });
  }
}
