/**
 * The writes of the issuing path, grouped together (group-commit.ts): the intents recorded before
 * signatures (intents.ts) and the orders stored issued after them (issued-orders.ts) share one queue
 * and one write in flight. A group holding both is ONE statement and one commit: the intents of the
 * requests about to sign ride with the certificates signed before them (`createIssuedOrdersWithIntents`).
 *
 * Why one queue and not one per kind (docs/DESIGN.md "Issuing authority"): every sign request makes
 * both writes, one after the other. With a queue each, the two groups went to the database side by
 * side, each half the size, each a statement, a plan and a commit of its own — under bench/api's 32
 * clients, twice the statements per certificate of a single store write, which cost more database and
 * server time than the intent itself. Writing whatever is queued in one statement keeps a signature's
 * record before it (its intent commits with the group it rode in, before the signer is told) and
 * makes the statements per certificate those of one grouped write again.
 *
 * Intents that answer something (an ACME order, an enrolment transaction) may be taken already; they
 * keep their own statement (`recordIntents` resolves the conflict), written beside the group.
 */
import type { Knex } from 'knex';
import type { IntentTaken, IssuanceIntentRecord, NewIssuanceIntent, NewIssuedOrder, OrderRecord } from '../../../lib/ports';
import { GroupCommit } from './group-commit';
import { recordIntent, recordIntents } from './intents';
import { createIssuedOrder, createIssuedOrders, createIssuedOrdersWithIntents } from './issued-orders';

/** A grouped write: `write(item)` resolves with the item's own outcome. */
export interface GroupedWrite<T, R> {
  write(item: T): Promise<R>;
}

type IssuingWrite = { intent: NewIssuanceIntent } | { order: NewIssuedOrder };
type IntentOutcome = IssuanceIntentRecord | IntentTaken;
type IssuingOutcome = IntentOutcome | OrderRecord | null;

/** The two grouped writes of the issuing path on `db`, sharing one queue. */
export function issuingWrites(db: Knex): {
  intents: GroupedWrite<NewIssuanceIntent, IntentOutcome>;
  issuedOrders: GroupedWrite<NewIssuedOrder, OrderRecord | null>;
} {
  const group = new GroupCommit<IssuingWrite, IssuingOutcome>(
    (many) => writeTogether(db, many),
    (one) => ('intent' in one ? recordIntent(db, one.intent) : createIssuedOrder(db, one.order, null)),
  );
  return {
    intents: { write: (intent) => group.write({ intent }) as Promise<IntentOutcome> },
    issuedOrders: { write: (order) => group.write({ order }) as Promise<OrderRecord | null> },
  };
}

/** One group: the orders with the intents that answer nothing in one statement, the other intents beside it; outcomes in input order. */
async function writeTogether(db: Knex, items: IssuingWrite[]): Promise<IssuingOutcome[]> {
  const orders = items.flatMap((item) => ('order' in item ? [item.order] : []));
  const intents = items.flatMap((item) => ('intent' in item ? [item.intent] : []));
  const rides = (intent: NewIssuanceIntent): boolean => orders.length > 0 && intent.answers === null;
  const riders = intents.filter(rides);
  const own = intents.filter((intent) => !rides(intent));
  const [together, alone] = await Promise.all([
    riders.length
      ? createIssuedOrdersWithIntents(db, orders, riders)
      : createIssuedOrders(db, orders, null).then((written) => ({ orders: written, intents: [] as IssuanceIntentRecord[] })),
    recordIntents(db, own),
  ]);
  let order = 0;
  let rider = 0;
  let alsoWritten = 0;
  return items.map((item) => {
    if ('order' in item) return together.orders[order++];
    return rides(item.intent) ? together.intents[rider++] : alone[alsoWritten++];
  });
}
