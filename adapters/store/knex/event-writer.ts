/**
 * Events written by the code that makes the change (docs/DESIGN.md "Domain events"): one INSERT of
 * any number of rows into `ca_api_events`, in the caller's transaction.
 *
 * Call it as the LAST statement of the transaction. It takes the events' order lock (a
 * transaction-level advisory lock held until commit, so ids become visible in rising order and a
 * reader of "events after id N" never skips one). Taken last, the transaction already holds every row
 * lock it needs, so waiting for the order lock cannot deadlock, and the lock is held only for the
 * commit. The audit chain's trigger (migrations/0011_audit_chain.ts) hashes each row as it is inserted.
 *
 * A null actor names the database role, as a write from outside the library would be named.
 */
import type { Knex } from 'knex';
import type { Actor, DomainEventType } from '../../../lib/ports';
import { TABLES } from './tables';

/** `pg_advisory_xact_lock(key1, key2)` keys of the event order lock: 'CAAP' and 'EVTS' as int4. */
const ORDER_LOCK_KEYS = '1128350032, 1163285587';

/** One event to append. The CA is named by its serial, or by its row id when the serial is not at hand. */
export interface EventToAppend {
  type: DomainEventType;
  /** Who made the change; null: the database role (`{type:'database', name, protocol:'sql'}`). */
  actor: Actor | null;
  caSerial?: string | null;
  caId?: number | null;
  /** Serial of the certificate concerned, or null. */
  serial?: string | null;
  data: Record<string, unknown>;
}

/** The events as a VALUES list `v(position, key, type, actor, ca_serial, ca_id, serial, data)`, and its bindings. */
function eventValues(events: readonly EventToAppend[], keys: readonly (string | null)[]): { sql: string; bindings: Knex.RawBinding[] } {
  const rows = events.map(() => '(?::int, ?::text, ?::text, ?::json, ?::text, ?::int, ?::text, ?::json)').join(', ');
  const bindings = events.flatMap((e, i) => [
    i,
    keys[i] ?? null,
    e.type,
    e.actor == null ? null : JSON.stringify(e.actor),
    e.caSerial ?? null,
    e.caId ?? null,
    e.serial ?? null,
    JSON.stringify(e.data),
  ]);
  return { sql: `(values ${rows}) as v(position, key, type, actor, ca_serial, ca_id, serial, data)`, bindings };
}

/** The INSERT … SELECT of the events of `from` (which names the order lock and `v`). */
const INSERT_EVENTS = `insert into "${TABLES.events}" (type, actor, ca_serial, serial, data)
     select v.type,
            coalesce(v.actor, json_build_object('type', 'database', 'name', current_user, 'protocol', 'sql')),
            coalesce(v.ca_serial, (select c.serial from "${TABLES.cas}" c where c.id = v.ca_id)),
            v.serial, v.data`;

export async function appendEvents(db: Knex, events: readonly EventToAppend[]): Promise<void> {
  if (events.length === 0) return;
  const values = eventValues(
    events,
    events.map(() => null),
  );
  // The lock is taken in a CTE the INSERT reads first, so the ids are drawn after it (no gaps from
  // the chain trigger re-drawing an id drawn before the lock).
  await db.raw(
    `with order_lock as materialized (select pg_advisory_xact_lock(${ORDER_LOCK_KEYS}))
     ${INSERT_EVENTS}
     from order_lock, ${values.sql}
     order by v.position`,
    values.bindings,
  );
}

/**
 * The events of a write appended IN its own statement, for a write that is a statement of its own
 * (the group commit's): two more common table expressions `order_lock` and `appended` to put after
 * the write's own. Each event carries a key; only the events whose key `written` (a query over the
 * write's CTEs, one `key` column of text) returns are appended — a row the statement did not write
 * makes no event. One round trip and one commit instead of BEGIN, the write, the events and COMMIT;
 * the order lock is taken after the write's rows are in, as the last thing the statement does before
 * the triggers at its end, and held for its commit (the header above).
 */
export function eventsInStatement(
  events: readonly { key: string; event: EventToAppend }[],
  written: string,
): { sql: string; bindings: Knex.RawBinding[] } {
  const values = eventValues(
    events.map((e) => e.event),
    events.map((e) => e.key),
  );
  return {
    sql: `order_lock as materialized (select pg_advisory_xact_lock(${ORDER_LOCK_KEYS}) from (select 1 from (${written}) w limit 1) any_written),
     appended as (
       ${INSERT_EVENTS}
       from order_lock, ${values.sql}
       where v.key in (${written})
       order by v.position
     )`,
    bindings: values.bindings,
  };
}
