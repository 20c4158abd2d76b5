/**
 * The domain events of a write, written by the code that makes the change (docs/DESIGN.md "Domain
 * events"): a write records its events as it makes its changes, and they are appended with
 * `appendEvents` (event-writer.ts) as the last statement of its transaction — of the one it opens, or,
 * inside a store transaction (`KnexStore.transaction`), of that one, all its writes' events in one call.
 *
 * The actor is passed: a store scoped by `actingAs(actor)` hands it to its writes; none (null) names
 * the database role, as `appendEvents` does.
 */
import type { Knex } from 'knex';
import type { Actor } from '../../../lib/ports';
import { mappingErrors } from './errors';
import { appendEvents, type EventToAppend } from './event-writer';

/** The events of an open store transaction, in the order their changes were made. */
export type EventQueue = EventToAppend[];

/** An event of a write; without an `actor` of its own, it names the writer's. */
export type NewEvent = Omit<EventToAppend, 'actor'> & { actor?: Actor | null };

/** How a write records the events of its changes. */
export type RecordEvents = (...events: NewEvent[]) => void;

/**
 * `work` and its events: in the store transaction `queue` belongs to (its events join the queue,
 * appended when that transaction ends), or, without one, in a transaction of its own with its events
 * appended last. Database errors are mapped as every store maps them (errors.ts).
 */
export function writeWithEvents<T>(
  db: Knex,
  queue: EventQueue | null,
  actor: Actor | null,
  work: (db: Knex, record: RecordEvents) => Promise<T>,
): Promise<T> {
  const recordInto =
    (events: EventQueue): RecordEvents =>
    (...made) => {
      for (const e of made) events.push({ ...e, actor: e.actor === undefined ? actor : e.actor });
    };
  if (queue) return mappingErrors(() => work(db, recordInto(queue)));
  return mappingErrors(() =>
    db.transaction(async (tx) => {
      const events: EventQueue = [];
      const result = await work(tx, recordInto(events));
      await appendQueued(tx, events);
      return result;
    }),
  );
}

/**
 * Append the queued events of transaction `tx`: its last statement. The event triggers that remain
 * (the certificate, order, CRL and expiry events of migration 0004 and its successors) fire at
 * commit; they are made to fire first (`SET CONSTRAINTS ALL IMMEDIATE`), so that the events of one
 * transaction keep the order of its changes where a certificate is stored before a decision about it
 * (an approved enrolment request: `certificate.issued`, then `enrolment.approved`).
 */
export async function appendQueued(tx: Knex, events: EventQueue): Promise<void> {
  if (events.length === 0) return;
  await tx.raw('SET CONSTRAINTS ALL IMMEDIATE');
  await appendEvents(tx, events.splice(0));
}
