/**
 * Follows the outbox of domain events (lib/ports/events.ts; docs/DESIGN.md "Domain events") from the
 * id that was the latest when it started: every event committed since, once, in commit order — from
 * this process or any other on the same database. A page is handed on whole and the position moves
 * past it only once it was handled, so a page whose handling failed (the database went away while
 * its certificates were looked up) is read again next time, never counted twice nor lost. A page that
 * fails for any other reason is logged and passed over, so that one bad event cannot stop the counts.
 *
 * It reads on a timer (`pollMs`; 0: never by itself) and when asked (`catchUp`, before a scrape).
 * One read at a time: a caller arriving during a read waits for it and reads again.
 */
import { isConnectionLost, StoreUnavailableError, type DomainEvent, type EventLog } from '../../lib/ports';

/** Events per read. */
const PAGE = 1000;
/** Pages per `catchUp`: a scrape after a long pause answers within its timeout; the timer reads the rest. */
const MAX_PAGES_PER_CATCH_UP = 20;

export interface EventFollowerSettings {
  pollMs: number;
  /** Handle one page, in order; a rejection leaves the position before the page. */
  handle(events: readonly DomainEvent[]): Promise<void>;
  /** Whether the last read of the outbox reached the database (false: the connection was lost). */
  onRead(reached: boolean): void;
  logError(message: string, error: unknown): void;
}

export class EventFollower {
  /** The id of the last event handled; null until the latest id at start is known. */
  private position: number | null = null;
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Whether a failure was logged since the last read that worked (logged once, not every `pollMs`). */
  private failing = false;

  constructor(
    private readonly log: EventLog,
    private readonly settings: EventFollowerSettings,
  ) {}

  /** Learn where the outbox ends now (what came before is not counted), then read on the timer. */
  start(): void {
    void this.catchUp();
    this.schedule();
  }

  /** Read what has come since the last read (up to a bound); resolves when done, never rejects. */
  catchUp(): Promise<void> {
    const run = this.chain.then(() => this.read());
    this.chain = run;
    return run;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.chain;
  }

  private schedule(): void {
    if (this.closed || this.settings.pollMs <= 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.catchUp().then(() => this.schedule());
    }, this.settings.pollMs);
    this.timer.unref?.();
  }

  private async read(): Promise<void> {
    if (this.closed) return;
    try {
      if (this.position === null) {
        this.position = await this.log.latestEventId();
        this.settings.onRead(true);
        return;
      }
      for (let pages = 0; pages < MAX_PAGES_PER_CATCH_UP && !this.closed; pages++) {
        const events = await this.log.eventsSince(this.position, PAGE);
        if (events.length > 0) {
          await this.handled(events);
          this.position = events[events.length - 1].id;
        }
        if (events.length < PAGE) break;
      }
      this.settings.onRead(true);
      this.failing = false;
    } catch (error) {
      const lost = isConnectionLost(error);
      this.settings.onRead(!lost);
      if (!lost && !this.failing) this.settings.logError('express-ca-api: metrics could not read the domain events; retrying', error);
      this.failing = true;
    }
  }

  /** `handle(events)`; the store's failure propagates (the page is read again), any other is logged. */
  private async handled(events: readonly DomainEvent[]): Promise<void> {
    try {
      await this.settings.handle(events);
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      this.settings.logError(`express-ca-api: metrics passed over ${events.length} domain event(s) it could not count`, error);
    }
  }
}
