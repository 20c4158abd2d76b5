/**
 * The events of a transaction's writes, appended as its last statement (event-writer.ts,
 * docs/DESIGN.md "Domain events"). A write adds its events to an `EventBatch`; who opened the
 * transaction appends them, all in one INSERT, after everything else:
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

export interface EventBatch {
  /** Who makes the writes: named by the events whose change carries no requester (null: the database role). */
  actor: Actor | null;
  events: PendingEvent[];
}

/**
 * `work` with the events it adds to its batch appended last: into `bound`, the batch of the store's
 * open transaction, when there is one; else in a transaction of their own (or the one `db` is).
 */
export async function writingEvents<T>(
  db: Knex,
  bound: EventBatch | null,
  actor: Actor | null,
  work: (db: Knex, batch: EventBatch) => Promise<T>,
): Promise<T> {
  if (bound) return work(db, bound);
  const run = async (trx: Knex) => {
    const batch: EventBatch = { actor, events: [] };
    const result = await work(trx, batch);
    await appendEvents(trx, batch.events);
    return result;
  };
  return db.isTransaction ? run(db) : db.transaction(run);
}

/** The stored certificate's pending event names the REST order it was issued for (the trigger found it at commit). */
export function nameOrder(batch: EventBatch, certificateId: number, slug: string): void {
  for (const event of batch.events) {
    if (event.certificateId === certificateId && event.type.startsWith('certificate.') && event.data.order === null) {
      event.data.order = slug;
    }
  }
}

/** An event of a write; without an `actor` of its own, it names the writer's. */
export type NewEvent = Omit<EventToAppend, 'actor'> & { actor?: Actor | null };

/** How a write records the events of its changes. */
export type RecordEvents = (...events: NewEvent[]) => void;

/**
 * `writingEvents` for a write that records its events as it makes its changes (`record(...)`), each
 * naming `actor` unless it names its own; database errors mapped as every store maps them (errors.ts).
 */
export function writeWithEvents<T>(
  db: Knex,
  bound: EventBatch | null,
  actor: Actor | null,
  work: (db: Knex, record: RecordEvents) => Promise<T>,
): Promise<T> {
  return mappingErrors(() =>
    writingEvents(db, bound, actor, (tx, batch) =>
      work(tx, (...made) => {
        for (const e of made) batch.events.push({ ...e, actor: e.actor === undefined ? (actor ?? batch.actor) : e.actor });
      }),
    ),
  );
}
