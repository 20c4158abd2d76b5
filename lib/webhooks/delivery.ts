/**
 * Webhook delivery from the outbox (docs/operations/webhooks.md; docs/DESIGN.md "Webhooks").
 *
 * Two kinds of background job (lib/ports/jobs.ts; docs/DESIGN.md "Background jobs"), run by one job
 * runner (lib/work/jobs-runner.ts) every `pollMs`:
 *
 * - `webhook_delivery`: an endpoint that has events after its position gets a job
 *   (`WebhookStore.enqueueDeliveries`, before each claim); the runner claims due jobs (one instance
 *   of the fleet per endpoint at a time) and this delivers to each endpoint, on its own, the events
 *   after its position in id order — the order the events committed in (lib/ports/events.ts). Events
 *   an endpoint did not ask for are passed over. The position moves past an event only once it was
 *   answered 2xx (or dead-lettered), and only while the job's lease is still this instance's: at least
 *   once, in order, and no doubles while instances keep their leases (a lease outlasts two request
 *   timeouts and is renewed with every event).
 * - `expiry_scan`: one recurring job, run every `expiringScanMs` by whichever instance claims it.
 *
 * The secret is opened only for an event the endpoint wants; one this server's key-encryption key
 * cannot open (after `ca-admin rotate_kek`, say) is this server's fault, not the receiver's: the
 * endpoint's schedule is left alone for a server that has the key (see `openSecret`).
 *
 * A failure of the receiver ends the endpoint's turn with a back-off of `backoffBaseMs · 2^(attempts−1)` (at most
 * `backoffMaxMs`), of which a random half is waited off (lib/work/policies.ts, webhook delivery): the job's
 * `run_at`, shown as the endpoint's next attempt; at `maxAttempts` the event goes to the dead letters and
 * the endpoint moves on (the job itself never fails).
 *
 * Nothing here is on the issuing path: delivery runs on its own timers, holds no transaction (nor,
 * on PGlite's single connection, the connection) while a request is out, and a receiver that never
 * answers costs one pending request per endpoint until `timeoutMs`.
 */
import type { LogError } from '../http/error-catch';
import {
  isConnectionLost,
  JOB_KINDS,
  NO_METRICS,
  type EventLog,
  type FilteredEventLog,
  type EventsOfTypes,
  type JobLease,
  type JobRecord,
  type JobStore,
  type MetricsSink,
  type SecretBox,
  type WebhookEndpointRecord,
  type WebhookSender,
  type WebhookStore,
} from '../ports';
import { JobsRunner, type JobContext, type JobHandler, type JobOutcome } from '../work/jobs-runner';
import { BACKOFF_POLICIES } from '../work/policies';
import type { ResolvedWebhookTuning } from './options';
import { webhookPayload } from './payload';

const PAGE = 100;
/** Pages per endpoint turn: a long backlog is delivered over several turns, so that leases stay short. */
const PAGES_PER_TURN = 10;
const DAY_MS = 86_400_000;
const ANNOUNCE_LIMIT = 1000;
/** How long this instance leaves alone an endpoint whose secret its key did not open (see `openSecret`). */
const UNOPENED_SECRET_PAUSE_MS = 60_000;
/** The expiry scan job's lease: a scan of a large inventory takes several statements of `ANNOUNCE_LIMIT`. */
const EXPIRY_SCAN_LEASE_MS = 300_000;
/** The expiry scan's one job. */
const EXPIRY_SCAN_REFERENCE = 'certificates';

export interface WebhookDeliveryPorts {
  store: { webhooks: WebhookStore; jobs: JobStore } & EventLog & FilteredEventLog;
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

/** Where a turn is: the lease it holds and what it learnt. */
interface Turn {
  lease: JobLease;
  context: JobContext;
}

export class OutboxWebhookDelivery implements WebhookDelivery {
  private readonly leaseMs: number;
  private readonly runner: JobsRunner;
  private closed = false;
  private failing = false;
  private readonly metrics: MetricsSink;
  /** Whether this instance has made sure the expiry scan has its job. */
  private scanEnqueued = false;

  constructor(
    private readonly settings: ResolvedWebhookTuning,
    private readonly ports: WebhookDeliveryPorts,
  ) {
    this.leaseMs = 2 * settings.timeoutMs + 5000;
    this.metrics = ports.metrics ?? NO_METRICS;
    const { webhooks, jobs } = ports.store;
    const handlers: JobHandler[] = [
      {
        kind: JOB_KINDS.webhookDelivery,
        leaseMs: this.leaseMs,
        policy: BACKOFF_POLICIES.webhookDelivery(settings),
        feed: () => webhooks.enqueueDeliveries(),
        handle: (job, context) => this.turn(job, context),
      },
    ];
    if (settings.expiringDays > 0) {
      handlers.push({
        kind: JOB_KINDS.expiryScan,
        leaseMs: EXPIRY_SCAN_LEASE_MS,
        policy: BACKOFF_POLICIES.expiryScanRetry(settings.expiringScanMs),
        feed: async () => {
          if (this.scanEnqueued) return;
          await jobs.enqueue(JOB_KINDS.expiryScan, EXPIRY_SCAN_REFERENCE);
          this.scanEnqueued = true;
        },
        handle: async () => {
          await this.scan();
          // Cut short by close(): another instance (or the next start) scans again at once.
          return this.closed ? { kind: 'release' } : { kind: 'again', afterMs: settings.expiringScanMs };
        },
      });
    }
    this.runner = new JobsRunner({
      name: 'webhook delivery',
      jobs,
      handlers,
      intervalMs: settings.pollMs,
      concurrency: settings.concurrency,
      logError: ports.logError,
    });
  }

  start(): this {
    this.runner.start();
    return this;
  }

  async deliverNow(): Promise<void> {
    await this.runner.runNow();
  }

  async announceExpiring(): Promise<number> {
    if (this.closed || this.settings.expiringDays <= 0) return 0;
    try {
      return await this.scan();
    } catch (error) {
      this.reportOnce('express-ca-api: webhooks could not look for expiring certificates; retrying', error);
      return 0;
    }
  }

  /** Announce what expires within `expiringDays`, a statement of `ANNOUNCE_LIMIT` at a time (the store's scan, one scanner for the fleet). */
  private async scan(): Promise<number> {
    const before = new Date(Date.now() + this.settings.expiringDays * DAY_MS);
    let total = 0;
    for (let n = ANNOUNCE_LIMIT; n === ANNOUNCE_LIMIT && !this.closed; total += n) {
      n = await this.ports.store.webhooks.announceExpiringCertificates(before, ANNOUNCE_LIMIT, {
        includeAutogenerated: this.settings.expiringIncludeAutogenerated,
      });
    }
    return total;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.runner.close();
    await this.ports.sender.close?.();
  }

  /** One endpoint's turn (its job): deliver from its position until it is done, fails, or the turn's pages are used. */
  private async turn(job: JobRecord, context: JobContext): Promise<JobOutcome> {
    const endpoint = await this.ports.store.webhooks.getWebhookEndpoint(Number(job.reference));
    // Removed or disabled since the job was made: nothing to deliver.
    if (!endpoint?.enabled) return { kind: 'done' };
    try {
      const outcome = await this.deliverTo(endpoint, { lease: context.lease, context });
      this.failing = false;
      return outcome;
    } catch (error) {
      // The store failed (an outage, say): the position stays where it was recorded; the lease runs out.
      this.reportOnce(`express-ca-api: webhook ${endpoint.id}: delivery interrupted; retrying`, error);
      throw error;
    }
  }

  /**
   * The endpoint's secret, opened when the first event it wants is to be signed (an endpoint with only
   * events it does not want to pass over needs none); null when this server's key does not open it.
   *
   * A secret sealed under another key-encryption key: nothing can be signed here; say so on the
   * endpoint, never what the secret was. Usually this is a server still on the old key after
   * `ca-admin rotate_kek` re-sealed the secrets — its own key's fault, not the receiver's — so the
   * endpoint's schedule (attempts, next attempt) is left as it was: a server that has the new key
   * delivers at once. This instance leaves the endpoint's job to the others for a minute instead.
   */
  private async openSecret(endpoint: WebhookEndpointRecord, turn: Turn): Promise<Buffer | JobOutcome> {
    try {
      return this.ports.secrets.open(endpoint.sealedSecret);
    } catch {
      const error =
        "the secret cannot be opened with this server's key-encryption key (after ca-admin rotate_kek, restart with the new key; " +
        'else make a new secret: ca-admin rotate_webhook_secret)';
      const recorded = await this.ports.store.webhooks.recordWebhookOutcome(
        endpoint.id,
        turn.lease,
        { kind: 'unattempted', error },
        this.leaseMs,
      );
      return recorded ? { kind: 'pass', forMs: UNOPENED_SECRET_PAUSE_MS } : { kind: 'lost' };
    }
  }

  private async deliverTo(endpoint: WebhookEndpointRecord, turn: Turn): Promise<JobOutcome> {
    const { webhooks } = this.ports.store;
    const LOST: JobOutcome = { kind: 'lost' };
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
            if (!(await this.advance(endpoint.id, turn, position))) return LOST;
            recorded = position;
          }
          const opened = await this.openSecret(endpoint, turn);
          if (!Buffer.isBuffer(opened)) return opened;
          secret = opened;
        }
        const started = performance.now();
        const result = await this.ports.sender.send({
          url: endpoint.url,
          secret,
          id: `evt_${event.id}`,
          timestamp: new Date(),
          body: webhookPayload(event),
          timeoutMs: this.settings.timeoutMs,
          signal: turn.context.signal,
        });
        // Closing cut the request short: not the receiver's failure; the event is sent again later.
        if (this.closed && !result.ok) return { kind: 'release' };
        const seconds = (performance.now() - started) / 1000;
        const lagSeconds = Math.max(0, (Date.now() - event.created.getTime()) / 1000);
        if (result.ok) {
          this.metrics.webhookDelivery?.({ endpoint: endpoint.id, outcome: 'delivered', seconds, lagSeconds });
          position = event.id;
          attempts = 0;
          if (!(await webhooks.recordWebhookOutcome(endpoint.id, turn.lease, { kind: 'advanced', position, delivered: 1 }, this.leaseMs)))
            return LOST;
          recorded = position;
          continue;
        }
        attempts += 1;
        if (attempts >= this.settings.maxAttempts) {
          this.metrics.webhookDelivery?.({ endpoint: endpoint.id, outcome: 'dead_letter', seconds, lagSeconds });
          const outcome = { kind: 'dead' as const, event, attempts, error: result.error };
          if (!(await webhooks.recordWebhookOutcome(endpoint.id, turn.lease, outcome, this.leaseMs))) return LOST;
          position = recorded = event.id;
          attempts = 0;
          continue;
        }
        this.metrics.webhookDelivery?.({ endpoint: endpoint.id, outcome: 'failed', seconds, lagSeconds });
        if (position > recorded && !(await this.advance(endpoint.id, turn, position))) return LOST;
        // The job waits as long as the endpoint says it does: one wait, by the kind's policy.
        const delayMs = turn.context.retryDelayMs(attempts);
        const nextAttempt = new Date(Date.now() + delayMs);
        const retry = { kind: 'retry' as const, error: result.error, nextAttempt };
        if (!(await webhooks.recordWebhookOutcome(endpoint.id, turn.lease, retry, this.leaseMs))) return LOST;
        return { kind: 'retry', error: result.error, attempts, delayMs };
      }
      if (this.closed) break;
      // Every event of the page was delivered or passed over: what the read skipped is passed over too.
      position = Math.max(position, scannedTo);
      if (!more) break;
    }
    if (position > recorded && !(await this.advance(endpoint.id, turn, position))) return LOST;
    // Closing: let the job go for another instance; else done (events still after the position get a job again).
    return this.closed ? { kind: 'release' } : { kind: 'done' };
  }

  /**
   * The events after `position`: of `types` only, when the endpoint names some (the others never leave
   * the database: a webhook that wants one type of a busy outbox reads what it wants), else all.
   */
  private async readPage(position: number, types: readonly string[] | null): Promise<EventsOfTypes> {
    const { store } = this.ports;
    if (types) return store.eventsOfTypesSince(position, types, PAGE);
    const events = await store.eventsSince(position, PAGE);
    return { events, scannedTo: events.at(-1)?.id ?? position, more: events.length === PAGE };
  }

  /** Record events passed over (not wanted) up to `position`. */
  private advance(id: number, turn: Turn, position: number): Promise<boolean> {
    return this.ports.store.webhooks.recordWebhookOutcome(id, turn.lease, { kind: 'advanced', position, delivered: 0 }, this.leaseMs);
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
