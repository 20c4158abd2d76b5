/**
 * The events of a transaction's writes, appended as its last statement (event-writer.ts,
 * docs/DESIGN.md "Domain events"). The one way store code says "this change, and these events, in
 * one transaction": `writeWithEvents(db, bound, actor, (db, record) => …)`, the write recording its
 * events (`record(...)`) as it makes its changes. Who opened the transaction appends them, all in one
 * INSERT, after everything else:
 *
 * - a store bound to a transaction (store.ts `transaction`) shares one batch among all its writes and
 *   appends it when `fn` is done, so a certificate stored and then linked to its order in the same
 *   transaction names that order (`nameOrder`);
 * - a write on the root store opens a transaction of its own for the change and its events;
 * - a write handed a transaction it did not open and no batch (`knexStore(trx)`, an ACME or
 *   enrolment store inside one) appends its events at once, in that transaction.
 */
import type { Knex } from 'knex';
import type { Actor } from '../../../lib/ports';
import { mappingErrors } from './errors';
import { appendEvents, type EventToAppend } from './event-writer';

/** An event to append, and the certificate it is about where an order may yet be named for it. */
export interface PendingEvent extends EventToAppend {
  certificateId?: number;
}

/** The events of an open transaction's writes, in the order of its changes, appended by who opened it. */
export type EventBatch = PendingEvent[];

/** An event of a write; without an `actor` of its own, it names the writer's. */
export type NewEvent = Omit<PendingEvent, 'actor'> & { actor?: Actor | null };

/** How a write records the events of its changes. */
export type RecordEvents = (...events: NewEvent[]) => void;

/**
 * `work` with the events it records appended last: into `bound`, the batch of the store's open
 * transaction, when there is one; else in a transaction of their own (or the one `db` is). Each event
 * names `actor` (null: the database role) unless it names its own; database errors mapped as every
 * store maps them (errors.ts).
 */
export function writeWithEvents<T>(
  db: Knex,
  bound: EventBatch | null,
  actor: Actor | null,
  work: (db: Knex, record: RecordEvents) => Promise<T>,
): Promise<T> {
  const into = (batch: EventBatch, tx: Knex) =>
    work(tx, (...made) => {
      for (const e of made) batch.push({ ...e, actor: e.actor === undefined ? actor : e.actor });
    });
  const own = async (trx: Knex) => {
    const batch: EventBatch = [];
    const result = await into(batch, trx);
    await appendEvents(trx, batch);
    return result;
  };
  return mappingErrors(() => (bound ? into(bound, db) : db.isTransaction ? own(db) : db.transaction(own)));
}

/** The stored certificate's pending event names the REST order it was issued for (the trigger found it at commit). */
export function nameOrder(batch: EventBatch, certificateId: number, slug: string): void {
  for (const event of batch) {
    if (event.certificateId === certificateId && event.type.startsWith('certificate.') && event.data.order === null) {
      event.data.order = slug;
    }
  }
}
