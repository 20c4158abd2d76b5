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

export async function appendEvents(db: Knex, events: readonly EventToAppend[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map(() => '(?::int, ?::text, ?::json, ?::text, ?::int, ?::text, ?::json)').join(', ');
  const bindings = events.flatMap((e, i) => [
    i,
    e.type,
    e.actor == null ? null : JSON.stringify(e.actor),
    e.caSerial ?? null,
    e.caId ?? null,
    e.serial ?? null,
    JSON.stringify(e.data),
  ]);
  // The lock is taken in a CTE the INSERT reads first, so the ids are drawn after it (no gaps from
  // the chain trigger re-drawing an id drawn before the lock).
  await db.raw(
    `with order_lock as materialized (select pg_advisory_xact_lock(${ORDER_LOCK_KEYS}))
     insert into ?? (type, actor, ca_serial, serial, data)
     select v.type,
            coalesce(v.actor, json_build_object('type', 'database', 'name', current_user, 'protocol', 'sql')),
            coalesce(v.ca_serial, (select c.serial from ?? c where c.id = v.ca_id)),
            v.serial, v.data
     from order_lock, (values ${rows}) as v(position, type, actor, ca_serial, ca_id, serial, data)
     order by v.position`,
    [TABLES.events, TABLES.cas, ...bindings],
  );
}
