/**
 * The knex store's `AuditLog` (lib/ports/audit.ts) over `ca_api_events` and its hash chain (migration
 * 0011). Rows are read with the exact texts the chain's hash covers — the JSON columns as stored
 * (`json`, not `jsonb`: never re-serialised) and the commit time formatted in UTC by the database —
 * so lib/audit/audit-chain.ts recomputes every hash without trusting a database function.
 */
import type { Knex } from 'knex';
import type { Actor, AuditFilter, AuditLog, AuditRow, DomainEventType } from '../../../lib/ports';
import { mappingErrors } from './errors';
import type { Row } from './rows';
import { TABLES } from './tables';
import { writeWithEvents, type EventBatch } from './transaction-events';
import { toNumber } from './values';

/** The most records one read returns. */
export const MAX_AUDIT_ROWS = 1000;

const CREATED_UTC = `to_char(created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const nullableText = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export class KnexAuditLog implements AuditLog {
  /** `queue`: the events of the store transaction `db` is bound to (null outside one). */
  constructor(
    private readonly db: Knex,
    private readonly queue: EventBatch | null = null,
  ) {}

  auditRows(filter: AuditFilter): Promise<AuditRow[]> {
    const afterId = filter.afterId ?? 0;
    if (!Number.isSafeInteger(afterId) || afterId < 0) throw new RangeError('afterId must be a non-negative integer');
    const beforeId = filter.beforeId ?? 0;
    if (!Number.isSafeInteger(beforeId) || beforeId < 0) throw new RangeError('beforeId must be a non-negative integer');
    const limit = Math.min(Math.max(1, Math.floor(filter.limit ?? 100)), MAX_AUDIT_ROWS);
    return mappingErrors(async () => {
      const q = this.db(TABLES.events)
        .select('id', this.db.raw(`${CREATED_UTC} AS created_text`), 'type', this.db.raw('actor::text AS actor_text'))
        .select('ca_serial', 'serial', this.db.raw('data::text AS data_text'), 'hash')
        .where('id', '>', afterId);
      if (beforeId > 0) q.where('id', '<', beforeId);
      if (filter.since) q.where('created', '>=', filter.since);
      if (filter.caSerial) q.where('ca_serial', filter.caSerial);
      if (filter.type) q.where('type', filter.type);
      // The actor is kept as the `json` text the chain covers; its name is read out of it, compared exactly.
      if (filter.actorName) q.whereRaw(`actor->>'name' = ?`, [filter.actorName]);
      if (filter.serial) q.where('serial', filter.serial);
      const rows = (await q.orderBy('id', filter.newestFirst ? 'desc' : 'asc').limit(limit)) as Row[];
      return rows.map((r) => ({
        id: toNumber(r.id),
        created: String(r.created_text),
        type: String(r.type),
        actorText: String(r.actor_text),
        caSerial: nullableText(r.ca_serial),
        serial: nullableText(r.serial),
        dataText: String(r.data_text),
        hash: String(r.hash),
      }));
    });
  }

  /** An event that is no row change (`login.locked_out`), written like every other (transaction-events.ts). */
  recordEvent(type: string, actor: Record<string, unknown>, data: Record<string, unknown>): Promise<void> {
    return writeWithEvents(this.db, this.queue, actor as unknown as Actor, async (_db, record) => {
      record({ type: type as DomainEventType, data });
    });
  }
}
