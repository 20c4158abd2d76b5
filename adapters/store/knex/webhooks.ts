/**
 * The knex store's `WebhookStore` (lib/ports/webhooks.ts; tables of migrations/0012_webhooks.ts).
 *
 * - An endpoint with events after its position gets a `webhook_delivery` job (jobs.ts, migration
 *   0033; `enqueueDeliveries`), which the job runner claims: one instance of the fleet at a time
 *   delivers to an endpoint. Every outcome is recorded only while the job's lease is still the
 *   caller's, in the statement that renews it: a deliverer that lost it (it stalled past the lease, an
 *   operator replayed the endpoint) learns so and stops, rather than moving a position someone else now moves.
 * - Adding, removing and giving a new secret record their events (`webhook.created`,
 *   `webhook.removed`, `webhook.secret_rotated`), naming this store's actor, in their own transaction
 *   or the store transaction this store is bound to (transaction-events.ts). A replay
 *   (`rewindWebhookEndpoint`) changes no setting of the endpoint and makes none.
 */
import type { Knex } from 'knex';
import {
  JOB_KINDS,
  type Actor,
  type ExpiryScanOptions,
  type JobLease,
  type NewWebhookEndpoint,
  type WebhookDeadLetter,
  type WebhookEndpointRecord,
  type WebhookOutcome,
  type WebhookStore,
} from '../../../lib/ports';
import { mappingErrors } from './errors';
import { certificateExpiring } from './event-data';
import { updateComparing } from './row-changes';
import type { Row } from './rows';
import { TABLES } from './tables';
import { enqueueSelectedSql, renewHeldJobSql, restartJob } from './jobs';
import { writeWithEvents, type EventBatch, type RecordEvents } from './transaction-events';
import { fromJson, toDate, toJson, toNullableDate, toNumber } from './values';

/** `pg_try_advisory_xact_lock` keys of the expiry scan: 'CAAP' and 'EXPY' as int4. */
const EXPIRY_LOCK_KEYS = '1128350032, 1163415641';
const MAX_ERROR_LENGTH = 500;
const DELIVERY = JOB_KINDS.webhookDelivery;

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
    private readonly queue: EventBatch | null,
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

  /** Also ends its job's lease, so that a deliverer busy with the endpoint stops instead of moving past the replay. */
  rewindWebhookEndpoint(id: number, fromEventId: number): Promise<boolean> {
    return this.write(async (db) => {
      const n = await db(TABLES.webhookEndpoints)
        .where({ id })
        .update({ position: Math.max(0, fromEventId - 1), attempts: 0, next_attempt: null, last_error: null });
      if (n > 0) await restartJob(db, DELIVERY, String(id));
      return n > 0;
    });
  }

  listWebhookDeadLetters(endpointId: number, limit = 100): Promise<WebhookDeadLetter[]> {
    return mappingErrors(async () =>
      ((await this.db(TABLES.webhookDeadLetters).where({ endpoint_id: endpointId }).orderBy('id').limit(limit)) as Row[]).map(toDeadLetter),
    );
  }

  enqueueDeliveries(): Promise<number> {
    return mappingErrors(async () => {
      const behind = `
        SELECT e.id::text AS reference, coalesce(e.next_attempt, clock_timestamp()) AS run_at, NULL::integer AS max_attempts
        FROM ${TABLES.webhookEndpoints} e
        WHERE e.enabled AND e.position < (SELECT coalesce(max(id), 0) FROM ${TABLES.events})
          AND NOT EXISTS (SELECT 1 FROM ${TABLES.jobs} j WHERE j.kind = '${DELIVERY}' AND j.reference = e.id::text AND j.state <> 'done')
        ORDER BY e.id`;
      const result = (await this.db.raw(`${enqueueSelectedSql(DELIVERY, behind)} RETURNING id`)) as { rows: Row[] };
      return result.rows.length;
    });
  }

  recordWebhookOutcome(id: number, lease: JobLease, outcome: WebhookOutcome, leaseMs: number): Promise<boolean> {
    // One statement each: the job's lease is renewed and the endpoint written, both only while the lease holds.
    const held = `WITH held AS (${renewHeldJobSql(leaseMs)})`;
    const mine = [lease.id, lease.owner];
    const endpoint = `${TABLES.webhookEndpoints}`;
    const update = async (set: string, bindings: Knex.Value[]): Promise<boolean> => {
      const result = (await this.db.raw(`${held} UPDATE ${endpoint} SET ${set} WHERE id = ? AND EXISTS (SELECT 1 FROM held) RETURNING id`, [
        ...mine,
        ...bindings,
        id,
      ])) as { rows: Row[] };
      return result.rows.length > 0;
    };
    return mappingErrors(async () => {
      if (outcome.kind === 'advanced') {
        return update('position = ?, delivered = delivered + ?, attempts = 0, next_attempt = NULL, last_error = NULL', [
          outcome.position,
          outcome.delivered,
        ]);
      }
      if (outcome.kind === 'retry') {
        return update('attempts = attempts + 1, next_attempt = ?, last_error = ?', [outcome.nextAttempt, clip(outcome.error)]);
      }
      if (outcome.kind === 'unattempted') return update('last_error = ?', [clip(outcome.error)]);
      // Dead letter and move past it in one statement: both or neither.
      const result = (await this.db.raw(
        `${held}, moved AS (
           UPDATE ${endpoint} SET position = ?, attempts = 0, next_attempt = NULL, last_error = ?
           WHERE id = ? AND EXISTS (SELECT 1 FROM held) RETURNING id)
         INSERT INTO ${TABLES.webhookDeadLetters} (endpoint_id, event_id, event_type, attempts, last_error)
         SELECT id, ?, ?, ?, ? FROM moved RETURNING id`,
        [...mine, outcome.event.id, clip(outcome.error), id, outcome.event.id, outcome.event.type, outcome.attempts, clip(outcome.error)],
      )) as { rows: Row[] };
      return result.rows.length > 0;
    });
  }

  announceExpiringCertificates(before: Date, limit: number, options: ExpiryScanOptions = {}): Promise<number> {
    // One transaction: the notices, then their `certificate.expiring` events (transaction-events.ts);
    // the advisory lock (one scanner for the fleet) ends with it. The notice's primary key makes each
    // announcement once-only whoever scans.
    return writeWithEvents(this.db, null, null, async (db, record) => {
      const result = (await db.raw(
        `WITH scanner AS (SELECT pg_try_advisory_xact_lock(${EXPIRY_LOCK_KEYS}) AS got),
         noticed AS (
           INSERT INTO ${TABLES.expiryNotices} (certificate_id)
           SELECT c.id FROM ${TABLES.certificates} c, scanner
           WHERE scanner.got AND NOT c.revoked AND c.not_after > clock_timestamp() AND c.not_after <= ?
             AND (? OR NOT c.autogenerated)
             AND NOT EXISTS (SELECT 1 FROM ${TABLES.expiryNotices} n WHERE n.certificate_id = c.id)
           ORDER BY c.not_after LIMIT ?
           ON CONFLICT DO NOTHING RETURNING certificate_id)
         SELECT c.ca_id, c.serial, c.cn, c.profile, c.not_after FROM noticed JOIN ${TABLES.certificates} c ON c.id = noticed.certificate_id
         ORDER BY c.not_after, c.id`,
        [before, options.includeAutogenerated === true, limit],
      )) as { rows: Row[] };
      for (const row of result.rows) {
        record(
          certificateExpiring({
            caId: toNumber(row.ca_id),
            serial: String(row.serial),
            cn: String(row.cn),
            profile: String(row.profile),
            notAfter: toDate(row.not_after),
          }),
        );
      }
      return result.rows.length;
    });
  }

  /** A management write and its events, naming this store's actor (transaction-events.ts). */
  private write<T>(work: (db: Knex, record: RecordEvents) => Promise<T>): Promise<T> {
    return writeWithEvents(this.db, this.queue, this.actor, work);
  }
}
