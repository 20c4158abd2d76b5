/**
 * The outbox of domain events (`EventLog`, lib/ports/events.ts): read in id order. The rows are
 * written by the database's own triggers (migrations/0004_events.ts) in the transaction of each
 * change; this file only reads them, and names the actor of a transaction for those triggers.
 */
import type { Knex } from 'knex';
import type { Actor, DomainEvent, DomainEventType } from '../../../lib/ports';
import type { Row } from './rows';
import { TABLES } from './tables';
import { fromJson, toDate, toNumber } from './values';

/** The most events one read returns, whatever the caller asks for. */
export const MAX_EVENTS_PER_READ = 1000;

function rowToEvent(row: Row): DomainEvent {
  return {
    id: toNumber(row.id),
    type: String(row.type) as DomainEventType,
    created: toDate(row.created),
    actor: fromJson<Actor>(row.actor),
    caSerial: row.ca_serial == null ? null : String(row.ca_serial),
    serial: row.serial == null ? null : String(row.serial),
    data: fromJson<Record<string, unknown>>(row.data),
  };
}

export async function eventsSince(db: Knex, afterId: number, limit = 100): Promise<DomainEvent[]> {
  if (!Number.isSafeInteger(afterId) || afterId < 0) throw new RangeError('afterId must be a non-negative integer');
  const take = Math.min(Math.max(1, Math.floor(limit)), MAX_EVENTS_PER_READ);
  const rows = (await db(TABLES.events).where('id', '>', afterId).orderBy('id').limit(take)) as Row[];
  return rows.map(rowToEvent);
}

export async function latestEventId(db: Knex): Promise<number> {
  const row = (await db(TABLES.events).max('id as id').first()) as Row | undefined;
  return row?.id == null ? 0 : toNumber(row.id);
}

/**
 * Name the actor of the current transaction for the event triggers (`ca_api.actor`, local to the
 * transaction: it ends with it, and never leaks to the next user of a pooled connection).
 */
export async function setActor(db: Knex, actor: Actor): Promise<void> {
  await db.raw(`select set_config('ca_api.actor', ?, true)`, [JSON.stringify(actor)]);
}
