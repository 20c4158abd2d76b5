/**
 * The outbox of domain events (`EventLog`, lib/ports/events.ts): read in id order. The rows are
 * written by the code that makes each change, in its transaction, as its last statement
 * (event-writer.ts, transaction-events.ts; no trigger writes one since migrations 0031 and 0032).
 * This file reads them.
 */
import type { Knex } from 'knex';
import type { Actor, DomainEvent, DomainEventType, EventsOfTypes } from '../../../lib/ports';
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

/** How many event ids one filtered read looks through at most, whatever it finds. */
export const MAX_EVENTS_SCANNED_PER_READ = 10_000;

/**
 * Events of `types` after `afterId` (`FilteredEventLog`). One statement, so one snapshot: the
 * newest id it sees bounds the look, and ids below it that are not there never will be (the events'
 * order lock, migrations/0004_events.ts). The look stops after `window` ids.
 */
export async function eventsOfTypesSince(
  db: Knex,
  afterId: number,
  types: readonly string[],
  limit = 100,
  window = MAX_EVENTS_SCANNED_PER_READ,
): Promise<EventsOfTypes> {
  if (!Number.isSafeInteger(afterId) || afterId < 0) throw new RangeError('afterId must be a non-negative integer');
  const take = Math.min(Math.max(1, Math.floor(limit)), MAX_EVENTS_PER_READ);
  const ofTypes = types.length ? `type in (${types.map(() => '?').join(', ')})` : 'false';
  const result = (await db.raw(
    `with horizon as (select coalesce(max(id), 0) as newest from ??)
     select h.newest as newest_id, e.* from horizon h
     left join lateral (
       select * from ?? where id > ? and id <= least(h.newest, ?::bigint) and ${ofTypes} order by id limit ?
     ) e on true
     order by e.id`,
    [TABLES.events, TABLES.events, afterId, afterId + window, ...types, take],
  )) as { rows: Row[] };
  const newest = toNumber(result.rows[0]?.newest_id ?? 0);
  const events = result.rows.filter((row) => row.id != null).map(rowToEvent);
  const looked = Math.max(afterId, Math.min(newest, afterId + window));
  if (events.length === take) return { events, scannedTo: events[events.length - 1].id, more: true };
  return { events, scannedTo: looked, more: looked < newest };
}

export async function latestEventId(db: Knex): Promise<number> {
  const row = (await db(TABLES.events).max('id as id').first()) as Row | undefined;
  return row?.id == null ? 0 : toNumber(row.id);
}
