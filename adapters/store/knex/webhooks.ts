/**
 * The knex store's `WebhookStore` (lib/ports/webhooks.ts; tables of migrations/0012_webhooks.ts).
 *
 * - An endpoint is leased with one `UPDATE … WHERE id IN (SELECT … SKIP LOCKED)` (work.ts): of two
 *   instances claiming at once, each gets other endpoints, and a leased endpoint is not claimed again
 *   before its lease runs out. Every outcome is recorded only while the lease is still the caller's
 *   (`lease_owner = owner`): a deliverer that lost it (it stalled past the lease, an operator replayed
 *   the endpoint) learns so and stops, rather than moving a position someone else now moves.
 * - Adding, removing and giving a new secret record their events (`webhook.created`,
 *   `webhook.removed`, `webhook.secret_rotated`), naming this store's actor, in their own transaction
 *   or the store transaction this store is bound to (transaction-events.ts). A replay
 *   (`rewindWebhookEndpoint`) changes no setting of the endpoint and makes none.
 */
import type { Knex } from 'knex';
import type {
  Actor,
  ExpiryScanOptions,
  NewWebhookEndpoint,
  WebhookDeadLetter,
  WebhookEndpointRecord,
  WebhookOutcome,
  WebhookStore,
} from '../../../lib/ports';
import { mappingErrors } from './errors';
import { updateComparing } from './row-changes';
import type { Row } from './rows';
import { TABLES } from './tables';
import { writeWithEvents, type EventQueue, type RecordEvents } from './transaction-events';
import {
  heldBy,
  SKIP_LOCKED,
  WEBHOOK_HELD_SQL,
  WEBHOOK_LEASE_FREE,
  WEBHOOK_NO_LEASE,
  webhookLeaseSql,
  webhookRenewed,
  webhookRenewSql,
} from './work';
import { fromJson, toDate, toJson, toNullableDate, toNumber } from './values';

/** `pg_try_advisory_xact_lock` keys of the expiry scan: 'CAAP' and 'EXPY' as int4. */
const EXPIRY_LOCK_KEYS = '1128350032, 1163415641';
const MAX_ERROR_LENGTH = 500;

function toEndpoint(row: Row): WebhookEndpointRecord {
  return {
    id: toNumber(row.id),
    url: String(row.url),
    sealedSecret: fromJson<unknown>(row.secret),
    eventTypes: fromJson<string[]>(row.event_types),
    enabled: Boolean(row.enabled),
    position: toNumber(row.position),
    attempts: toNumber(row.attempts),
    nextAttempt: toNullableDate(row.next_attempt),
    lastError: row.last_error == null ? null : String(row.last_error),
    delivered: toNumber(row.delivered),
    created: toDate(row.created),
  };
}

function toDeadLetter(row: Row): WebhookDeadLetter {
  return {
    id: toNumber(row.id),
    endpointId: toNumber(row.endpoint_id),
    eventId: toNumber(row.event_id),
    eventType: String(row.event_type),
    attempts: toNumber(row.attempts),
    lastError: row.last_error == null ? null : String(row.last_error),
    created: toDate(row.created),
  };
}

const clip = (error: string) => error.slice(0, MAX_ERROR_LENGTH);

/** What the events of an endpoint say of it: its id, URL and event types — never its secret. */
const about = (row: Row) => ({ webhook: toNumber(row.id), url: String(row.url), event_types: fromJson<unknown>(row.event_types) });

export class KnexWebhookStore implements WebhookStore {
  constructor(
    private readonly db: Knex,
    private readonly queue: EventQueue | null,
    private readonly actor: Actor | null,
  ) {}

  addWebhookEndpoint(endpoint: NewWebhookEndpoint): Promise<WebhookEndpointRecord> {
    return this.write(async (db, record) => {
      const position = endpoint.position === undefined ? db.raw(`(SELECT coalesce(max(id), 0) FROM ${TABLES.events})`) : endpoint.position;
      const [row] = (await db(TABLES.webhookEndpoints)
        .insert({ url: endpoint.url, secret: toJson(endpoint.sealedSecret), event_types: toJson(endpoint.eventTypes), position })
        .returning('*')) as Row[];
      record({ type: 'webhook.created', data: about(row) });
      return toEndpoint(row);
    });
  }

  listWebhookEndpoints(): Promise<WebhookEndpointRecord[]> {
    return mappingErrors(async () => ((await this.db(TABLES.webhookEndpoints).orderBy('id')) as Row[]).map(toEndpoint));
  }

  getWebhookEndpoint(id: number): Promise<WebhookEndpointRecord | null> {
    return mappingErrors(async () => {
      const row = (await this.db(TABLES.webhookEndpoints).where({ id }).first()) as Row | undefined;
      return row ? toEndpoint(row) : null;
    });
  }

  removeWebhookEndpoint(id: number): Promise<boolean> {
    // `returning`: the affected-row count of a DELETE is not reported alike by both drivers.
    return this.write(async (db, record) => {
      const removed = (await db(TABLES.webhookEndpoints).where({ id }).delete().returning(['id', 'url', 'event_types'])) as Row[];
      for (const row of removed) record({ type: 'webhook.removed', data: about(row) });
      return removed.length > 0;
    });
  }

  /** `webhook.secret_rotated` when the secret changed (the sealed text differs); the same sealed secret again is no rotation. */
  setWebhookSecret(id: number, sealedSecret: unknown): Promise<boolean> {
    return this.write(async (db, record) => {
      const changed = await updateComparing(
        db,
        TABLES.webhookEndpoints,
        { id },
        { secret: toJson(sealedSecret) },
        { secret: 'n.secret::text IS DISTINCT FROM o.secret::text' },
      );
      if (changed?.change.secret) record({ type: 'webhook.secret_rotated', data: about(changed.row) });
      return changed !== null;
    });
  }

  /** Also ends any lease, so that a deliverer busy with the endpoint stops instead of moving past the replay. */
  rewindWebhookEndpoint(id: number, fromEventId: number): Promise<boolean> {
    return mappingErrors(
      async () =>
        (await this.db(TABLES.webhookEndpoints)
          .where({ id })
          .update({
            position: Math.max(0, fromEventId - 1),
            attempts: 0,
            next_attempt: null,
            last_error: null,
            ...WEBHOOK_NO_LEASE,
          })) > 0,
    );
  }

  listWebhookDeadLetters(endpointId: number, limit = 100): Promise<WebhookDeadLetter[]> {
    return mappingErrors(async () =>
      ((await this.db(TABLES.webhookDeadLetters).where({ endpoint_id: endpointId }).orderBy('id').limit(limit)) as Row[]).map(toDeadLetter),
    );
  }

  claimWebhookEndpoints(owner: string, leaseMs: number, limit: number, except: readonly number[] = []): Promise<WebhookEndpointRecord[]> {
    return mappingErrors(async () => {
      const result = (await this.db.raw(
        `UPDATE ${TABLES.webhookEndpoints} SET ${webhookLeaseSql(leaseMs)}
         WHERE id IN (
           SELECT id FROM ${TABLES.webhookEndpoints}
           WHERE enabled AND ${WEBHOOK_LEASE_FREE}
             AND (next_attempt IS NULL OR next_attempt <= clock_timestamp())
             AND position < (SELECT coalesce(max(id), 0) FROM ${TABLES.events})
             AND NOT (id = ANY(?::integer[]))
           ORDER BY id LIMIT ? ${SKIP_LOCKED})
         RETURNING *`,
        [owner, `{${except.map((id) => Math.floor(id)).join(',')}}`, limit],
      )) as { rows: Row[] };
      return result.rows.map(toEndpoint).sort((a, b) => a.id - b.id);
    });
  }

  recordWebhookOutcome(id: number, owner: string, outcome: WebhookOutcome, leaseMs: number): Promise<boolean> {
    const mine = heldBy(id, owner);
    const renewed = webhookRenewed(this.db, leaseMs);
    return mappingErrors(async () => {
      if (outcome.kind === 'advanced') {
        const n = await this.db(TABLES.webhookEndpoints)
          .where(mine)
          .update({
            position: outcome.position,
            delivered: this.db.raw('delivered + ?', [outcome.delivered]),
            attempts: 0,
            next_attempt: null,
            last_error: null,
            ...renewed,
          });
        return n > 0;
      }
      if (outcome.kind === 'retry') {
        const n = await this.db(TABLES.webhookEndpoints)
          .where(mine)
          .update({
            attempts: this.db.raw('attempts + 1'),
            next_attempt: outcome.nextAttempt,
            last_error: clip(outcome.error),
            ...renewed,
          });
        return n > 0;
      }
      if (outcome.kind === 'unattempted') {
        const n = await this.db(TABLES.webhookEndpoints)
          .where(mine)
          .update({ last_error: clip(outcome.error), ...renewed });
        return n > 0;
      }
      // Dead letter and move past it in one statement: both or neither.
      const result = (await this.db.raw(
        `WITH moved AS (
           UPDATE ${TABLES.webhookEndpoints} SET position = ?, attempts = 0, next_attempt = NULL, last_error = ?, ${webhookRenewSql(leaseMs)}
           WHERE ${WEBHOOK_HELD_SQL} RETURNING id)
         INSERT INTO ${TABLES.webhookDeadLetters} (endpoint_id, event_id, event_type, attempts, last_error)
         SELECT id, ?, ?, ?, ? FROM moved RETURNING id`,
        [outcome.event.id, clip(outcome.error), id, owner, outcome.event.id, outcome.event.type, outcome.attempts, clip(outcome.error)],
      )) as { rows: Row[] };
      return result.rows.length > 0;
    });
  }

  releaseWebhookEndpoint(id: number, owner: string): Promise<void> {
    return mappingErrors(async () => {
      await this.db(TABLES.webhookEndpoints).where(heldBy(id, owner)).update(WEBHOOK_NO_LEASE);
    });
  }

  announceExpiringCertificates(before: Date, limit: number, options: ExpiryScanOptions = {}): Promise<number> {
    return mappingErrors(async () => {
      // One statement, so one transaction: the advisory lock (one scanner for the fleet) ends with it.
      // The notice's primary key makes each announcement once-only whoever scans.
      const result = (await this.db.raw(
        `WITH scanner AS (SELECT pg_try_advisory_xact_lock(${EXPIRY_LOCK_KEYS}) AS got)
         INSERT INTO ${TABLES.expiryNotices} (certificate_id)
         SELECT c.id FROM ${TABLES.certificates} c, scanner
         WHERE scanner.got AND NOT c.revoked AND c.not_after > clock_timestamp() AND c.not_after <= ?
           AND (? OR NOT c.autogenerated)
           AND NOT EXISTS (SELECT 1 FROM ${TABLES.expiryNotices} n WHERE n.certificate_id = c.id)
         ORDER BY c.not_after LIMIT ?
         ON CONFLICT DO NOTHING RETURNING certificate_id`,
        [before, options.includeAutogenerated === true, limit],
      )) as { rows: Row[] };
      return result.rows.length;
    });
  }

  /** A management write and its events, naming this store's actor (transaction-events.ts). */
  private write<T>(work: (db: Knex, record: RecordEvents) => Promise<T>): Promise<T> {
    return writeWithEvents(this.db, this.queue, this.actor, work);
  }
}
