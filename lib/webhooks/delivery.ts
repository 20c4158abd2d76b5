/**
 * Webhook delivery from the outbox (docs/operations/webhooks.md; docs/DESIGN.md "Webhooks").
 *
 * Every `pollMs` (its work loop, lib/work/loop.ts) this instance leases the endpoints that have
 * events after their position and are due (`WebhookStore.claimWebhookEndpoints`: one instance of the
 * fleet per endpoint at a time), and delivers to each, on its own, the events after its position in
 * id order — the order the events committed in (lib/ports/events.ts). Events an endpoint did not ask
 * for are passed over. The position moves past an event only once it was answered 2xx (or
 * dead-lettered), and only while the lease is still this instance's: at least once, in order, and no
 * doubles while instances keep their leases (a lease outlasts two request timeouts and is renewed with
 * every event).
 *
 * The secret is opened only for an event the endpoint wants; one this server's key-encryption key
 * cannot open (after `ca-admin rotate_kek`, say) is this server's fault, not the receiver's: the
 * endpoint's schedule is left alone for a server that has the key (see `openSecret`).
 *
 * A failure of the receiver ends the endpoint's turn with a back-off of `backoffBaseMs · 2^(attempts−1)` (at most
 * `backoffMaxMs`), of which a random half is waited off (lib/work/policies.ts, webhook delivery); at `maxAttempts` the event goes
 * to the dead letters and the endpoint moves on.
 *
 * Nothing here is on the issuing path: delivery runs on its own timers, holds no transaction (nor,
 * on PGlite's single connection, the connection) while a request is out, and a receiver that never
 * answers costs one pending request per endpoint until `timeoutMs`.
 */
import { randomBytes } from 'crypto';
import type { LogError } from '../http/error-catch';
import {
  hasFilteredEventLog,
  isConnectionLost,
  NO_METRICS,
  type EventLog,
  type EventsOfTypes,
  type MetricsSink,
  type SecretBox,
  type WebhookEndpointRecord,
  type WebhookSender,
  type WebhookStore,
} from '../ports';
import { delayMs } from '../work/backoff';
import { BACKOFF_POLICIES } from '../work/policies';
import { WorkLoop } from '../work/loop';
import type { ResolvedWebhookTuning } from './options';
import { webhookPayload } from './payload';

const PAGE = 100;
/** Pages per endpoint turn: a long backlog is delivered over several turns, so that leases stay short. */
const PAGES_PER_TURN = 10;
const DAY_MS = 86_400_000;
const ANNOUNCE_LIMIT = 1000;
/** How long this instance leaves alone an endpoint whose secret its key did not open (see `openSecret`). */
const UNOPENED_SECRET_PAUSE_MS = 60_000;

export interface WebhookDeliveryPorts {
  store: { webhooks: WebhookStore } & EventLog;
  /** Opens the endpoints' secrets. */
  secrets: SecretBox;
  sender: WebhookSender;
  logError: LogError;
  metrics?: MetricsSink;
}

export interface WebhookDelivery {
  /** Deliver what is due now (also done every `pollMs`); resolves when this round's turns have ended. */
  deliverNow(): Promise<void>;
  /** Announce expiring certificates now (also done every `expiringScanMs`); resolves to how many. */
  announceExpiring(): Promise<number>;
  /** Stop the timers, cut the requests under way short (their events are sent again later) and wait for the turns to end. */
  close(): Promise<void>;
}

export class OutboxWebhookDelivery implements WebhookDelivery {
  /** This instance's name in leases. */
  private readonly owner = `wh-${process.pid}-${randomBytes(6).toString('hex')}`;
  private readonly leaseMs: number;
  private readonly turns = new Map<number, Promise<void>>();
  private readonly loops: WorkLoop[];
  private closed = false;
  /** Aborts the requests under way when closing. */
  private readonly closing = new AbortController();
  private failing = false;
  private readonly metrics: MetricsSink;
  /** Endpoints whose secret this instance's key did not open → until when it leaves them to the others. */
  private readonly unopened = new Map<number, number>();

  constructor(
    private readonly settings: ResolvedWebhookTuning,
    private readonly ports: WebhookDeliveryPorts,
  ) {
    this.leaseMs = 2 * settings.timeoutMs + 5000;
    this.metrics = ports.metrics ?? NO_METRICS;
    // Two loops (lib/work/loop.ts), each failure of theirs already reported once by `reportOnce`.
    const loop = (name: string, intervalMs: number, round: () => Promise<unknown>) =>
      new WorkLoop({ name, intervalMs, round, logError: ports.logError });
    this.loops = [loop('webhook delivery', settings.pollMs, () => this.startTurns())];
    if (settings.expiringDays > 0)
      this.loops.push(loop('expiring-certificate scan', settings.expiringScanMs, () => this.announceExpiring()));
  }

  start(): this {
    for (const loop of this.loops) loop.start();
    return this;
  }

  async deliverNow(): Promise<void> {
    await Promise.all(await this.startTurns());
  }
  /** The claim under way, which `close()` waits for (so that no turn starts unseen after it). */
  private claiming: Promise<unknown> = Promise.resolve();

  /**
   * Lease what is due and start a turn for each; the turns are not waited for, so that the timer
   * keeps polling (and the other endpoints keep moving) while one endpoint's receiver is slow.
   */
  private async startTurns(): Promise<Promise<void>[]> {
    const free = this.settings.concurrency - this.turns.size;
    if (this.closed || free <= 0) return [];
    let claimed: WebhookEndpointRecord[];
    try {
      const claim = this.ports.store.webhooks.claimWebhookEndpoints(this.owner, this.leaseMs, free, [
        ...this.turns.keys(),
        ...this.leftToOthers(),
      ]);
      this.claiming = claim.catch(() => undefined);
      claimed = await claim;
      this.failing = false;
    } catch (error) {
      this.reportOnce('express-ca-api: webhooks could not read their endpoints; retrying', error);
      return [];
    }
    if (this.closed) {
      // Closed while claiming: hand the leases back rather than leave them to run out.
      await Promise.all(claimed.map((e) => this.ports.store.webhooks.releaseWebhookEndpoint(e.id, this.owner).catch(() => undefined)));
      return [];
    }
    const started: Promise<void>[] = [];
    for (const endpoint of claimed) {
      const turn = this.turn(endpoint).finally(() => this.turns.delete(endpoint.id));
      this.turns.set(endpoint.id, turn);
      started.push(turn);
    }
    return started;
  }

  async announceExpiring(): Promise<number> {
    if (this.closed || this.settings.expiringDays <= 0) return 0;
    try {
      const before = new Date(Date.now() + this.settings.expiringDays * DAY_MS);
      let total = 0;
      for (let n = ANNOUNCE_LIMIT; n === ANNOUNCE_LIMIT && !this.closed; total += n) {
        n = await this.ports.store.webhooks.announceExpiringCertificates(before, ANNOUNCE_LIMIT, {
          includeAutogenerated: this.settings.expiringIncludeAutogenerated,
        });
      }
      return total;
    } catch (error) {
      this.reportOnce('express-ca-api: webhooks could not look for expiring certificates; retrying', error);
      return 0;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    await Promise.all(this.loops.map((loop) => loop.stop()));
    await this.claiming;
    await Promise.all(this.turns.values());
    await this.ports.sender.close?.();
  }

  /** One endpoint's turn: deliver from its position until it is done, fails, or the turn's pages are used. */
  private async turn(endpoint: WebhookEndpointRecord): Promise<void> {
    const { webhooks } = this.ports.store;
    try {
      await this.deliverTo(endpoint);
    } catch (error) {
      // The store failed (an outage, say): the position stays where it was recorded; the lease runs out.
      this.reportOnce(`express-ca-api: webhook ${endpoint.id}: delivery interrupted; retrying`, error);
      return;
    }
    await webhooks.releaseWebhookEndpoint(endpoint.id, this.owner).catch(() => undefined);
  }

  /** The endpoints this instance leaves to the others for now (their secret did not open with its key). */
  private leftToOthers(): number[] {
    const now = Date.now();
    for (const [id, until] of this.unopened) if (until <= now) this.unopened.delete(id);
    return [...this.unopened.keys()];
  }

  /**
   * The endpoint's secret, opened when the first event it wants is to be signed (an endpoint with only
   * events it does not want to pass over needs none); null when this server's key does not open it.
   *
   * A secret sealed under another key-encryption key: nothing can be signed here; say so on the
   * endpoint, never what the secret was. Usually this is a server still on the old key after
   * `ca-admin rotate_kek` re-sealed the secrets — its own key's fault, not the receiver's — so the
   * endpoint's schedule (attempts, next attempt) is left as it was: a server that has the new key
   * delivers at once. This instance leaves the endpoint to the others for a minute instead.
   */
  private async openSecret(endpoint: WebhookEndpointRecord): Promise<Buffer | null> {
    try {
      return this.ports.secrets.open(endpoint.sealedSecret);
    } catch {
      const error =
        "the secret cannot be opened with this server's key-encryption key (after ca-admin rotate_kek, restart with the new key; " +
        'else make a new secret: ca-admin rotate_webhook_secret)';
      this.unopened.set(endpoint.id, Date.now() + UNOPENED_SECRET_PAUSE_MS);
      await this.ports.store.webhooks.recordWebhookOutcome(endpoint.id, this.owner, { kind: 'unattempted', error }, this.leaseMs);
      return null;
    }
  }

  private async deliverTo(endpoint: WebhookEndpointRecord): Promise<void> {
    const { webhooks } = this.ports.store;
    const wantsAll = endpoint.eventTypes.includes('*');
    const wanted = new Set(endpoint.eventTypes);
    let secret: Buffer | null = null;
    let position = endpoint.position;
    let recorded = position;
    let attempts = endpoint.attempts;
    for (let page = 0; page < PAGES_PER_TURN && !this.closed; page++) {
      const { events, scannedTo, more } = await this.readPage(position, wantsAll ? null : endpoint.eventTypes);
      for (const event of events) {
        if (this.closed) break;
        // Never attempted: an event the endpoint does not want is passed over, whatever else fails.
        if (!wantsAll && !wanted.has(event.type)) {
          position = event.id;
          continue;
        }
        if (!secret) {
          if (position > recorded) {
            if (!(await this.advance(endpoint.id, position))) return;
            recorded = position;
          }
          secret = await this.openSecret(endpoint);
          if (!secret) return;
        }
        const started = performance.now();
        const result = await this.ports.sender.send({
          url: endpoint.url,
          secret,
          id: `evt_${event.id}`,
          timestamp: new Date(),
          body: webhookPayload(event),
          timeoutMs: this.settings.timeoutMs,
          signal: this.closing.signal,
        });
        // Closing cut the request short: not the receiver's failure; the event is sent again later.
        if (this.closed && !result.ok) return;
        const seconds = (performance.now() - started) / 1000;
        const lagSeconds = Math.max(0, (Date.now() - event.created.getTime()) / 1000);
        if (result.ok) {
          this.metrics.webhookDelivery?.({ endpoint: endpoint.id, outcome: 'delivered', seconds, lagSeconds });
          position = event.id;
          attempts = 0;
          if (!(await webhooks.recordWebhookOutcome(endpoint.id, this.owner, { kind: 'advanced', position, delivered: 1 }, this.leaseMs)))
            return;
          recorded = position;
          continue;
        }
        attempts += 1;
        if (attempts >= this.settings.maxAttempts) {
          this.metrics.webhookDelivery?.({ endpoint: endpoint.id, outcome: 'dead_letter', seconds, lagSeconds });
          const outcome = { kind: 'dead' as const, event, attempts, error: result.error };
          if (!(await webhooks.recordWebhookOutcome(endpoint.id, this.owner, outcome, this.leaseMs))) return;
          position = recorded = event.id;
          attempts = 0;
          continue;
        }
        this.metrics.webhookDelivery?.({ endpoint: endpoint.id, outcome: 'failed', seconds, lagSeconds });
        if (position > recorded && !(await this.advance(endpoint.id, position))) return;
        const nextAttempt = new Date(Date.now() + delayMs(BACKOFF_POLICIES.webhookDelivery(this.settings), attempts));
        await webhooks.recordWebhookOutcome(endpoint.id, this.owner, { kind: 'retry', error: result.error, nextAttempt }, this.leaseMs);
        return;
      }
      if (this.closed) break;
      // Every event of the page was delivered or passed over: what the read skipped is passed over too.
      position = Math.max(position, scannedTo);
      if (!more) break;
    }
    if (position > recorded) await this.advance(endpoint.id, position);
  }

  /**
   * The events after `position`: of `types` only when the store can filter (the others never leave
   * the database: a webhook that wants one type of a busy outbox reads what it wants), else all.
   */
  private async readPage(position: number, types: readonly string[] | null): Promise<EventsOfTypes> {
    const { store } = this.ports;
    if (types && hasFilteredEventLog(store)) return store.eventsOfTypesSince(position, types, PAGE);
    const events = await store.eventsSince(position, PAGE);
    return { events, scannedTo: events.at(-1)?.id ?? position, more: events.length === PAGE };
  }

  /** Record events passed over (not wanted) up to `position`. */
  private advance(id: number, position: number): Promise<boolean> {
    return this.ports.store.webhooks.recordWebhookOutcome(id, this.owner, { kind: 'advanced', position, delivered: 0 }, this.leaseMs);
  }

  /** Log a failure once until things work again (not every `pollMs`); a lost connection is an outage, not news. */
  private reportOnce(message: string, error: unknown): void {
    // After close() the store may be closed under a statement still running: that is no failure.
    if (!this.failing && !this.closed && !isConnectionLost(error)) this.ports.logError(message, error);
    this.failing = true;
  }
}

export function webhookDelivery(settings: ResolvedWebhookTuning, ports: WebhookDeliveryPorts): OutboxWebhookDelivery {
  return new OutboxWebhookDelivery(settings, ports).start();
}
