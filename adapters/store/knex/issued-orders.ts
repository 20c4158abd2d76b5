/**
 * Orders written already issued, each with its certificate (`IssuedOrderStore`, lib/ports): the
 * sign endpoint signed the certificate in the request, so the order row and the certificate row go
 * to the database in ONE statement — instead of a pending order now and, a batch later, a second
 * statement that stores the certificate and marks the order (docs/DESIGN.md "Orders").
 *
 * The CA is checked as the statement runs: an order whose CA is missing or revoked by then is not
 * written (null), so a CA revoked by another instance a moment ago issues nothing more; the caller
 * places that order pending, and the runner records why it fails (docs/reference/differences.md D3).
 */
import type { Knex } from 'knex';
import {
  StoreConflictError,
  type IssuanceIntentRecord,
  type NewIssuanceIntent,
  type NewIssuedOrder,
  type OrderRecord,
} from '../../../lib/ports';
import { CERTIFICATE_COLUMN_LIST, CERTIFICATE_PLACEHOLDERS, certificateBindings, certificateColumnsOf } from './certificate-values';
import { mappingErrors } from './errors';
import { certificateStored } from './event-data';
import { eventsInStatement } from './event-writer';
import { INTENT_RETURNING, intentKey, intentValues, writtenIntent } from './intents';
import { actorToJson, type Row } from './rows';
import { randomSlug, SLUG_ATTEMPTS } from './slug';
import { TABLES } from './tables';
import type { RecordEvents } from './transaction-events';
import { toJson, toNumber } from './values';

/** The record of an order the statement wrote (it returns only the generated ids). */
function issuedRecord(order: NewIssuedOrder, slug: string, id: number, certificateId: number, when: Date): OrderRecord {
  return {
    id,
    created: when,
    updated: when,
    slug,
    caId: order.caId,
    userId: order.userId,
    status: 'issued',
    certificateSerial: order.certificate.serial,
    certificateId,
    error: null,
    request: order.request,
    requester: order.requester ?? null,
    leaseOwner: null,
    leaseExpires: null,
  };
}

/**
 * Several issued orders in one statement (the store's group commit); results in input order, null
 * where the CA was missing or revoked. A unique violation (a slug or serial taken) fails the whole
 * statement, and nothing of it is written. The certificates' events (each naming its order) are
 * recorded into the open store transaction's (`record`); without one, they are appended by the statement itself
 * (event-writer.ts `eventsInStatement`): the REST sign's hot path costs one round trip and one commit.
 */
export function createIssuedOrders(db: Knex, orders: NewIssuedOrder[], record: RecordEvents | null): Promise<(OrderRecord | null)[]> {
  if (orders.length === 0) return Promise.resolve([]);
  return mappingErrors(async () => (await insertIssuedOrders(db, orders, record, [])).orders);
}

/**
 * Issued orders, and the intents of other requests about to sign, in ONE statement and one commit
 * (issuing-writes.ts): the intents ride along with the certificates signed before them. `intents`
 * must answer nothing (`answers` null: no ON CONFLICT to resolve); a unique violation of either
 * fails the whole statement and nothing of it is written. Results in input order.
 */
export function createIssuedOrdersWithIntents(
  db: Knex,
  orders: NewIssuedOrder[],
  intents: NewIssuanceIntent[],
): Promise<{ orders: (OrderRecord | null)[]; intents: IssuanceIntentRecord[] }> {
  if (intents.some((intent) => intent.answers !== null))
    throw new TypeError('createIssuedOrdersWithIntents: an intent that answers something');
  return mappingErrors(() => insertIssuedOrders(db, orders, null, intents));
}

async function insertIssuedOrders(
  db: Knex,
  orders: NewIssuedOrder[],
  record: RecordEvents | null,
  riders: NewIssuanceIntent[],
): Promise<{ orders: (OrderRecord | null)[]; intents: IssuanceIntentRecord[] }> {
  const when = new Date();
  const slugs = new Set<string>();
  while (slugs.size < orders.length) slugs.add(randomSlug()); // distinct within the statement
  const fresh = [...slugs];
  const rowSql = `(?::text, ?::integer, ?::jsonb, ?::text, ?::json, ${CERTIFICATE_PLACEHOLDERS})`;
  const bindings = orders.flatMap((order, i) => [
    fresh[i],
    order.userId,
    toJson(order.request),
    order.requester?.address ?? null,
    actorToJson(order.requester),
    ...certificateBindings(order.certificate),
  ]);
  // Without a transaction's record, each certificate's event is keyed by its order's slug and appended if that order was placed.
  const events = record
    ? null
    : eventsInStatement(
        orders.map((order, i) => ({ key: fresh[i], event: certificateStored(order.certificate, fresh[i], null) })),
        'select slug from placed',
      );
  // The riding intents: written first, returned beside the orders (`what` tells them apart).
  const riding = riders.length ? intentValues(riders) : null;
  const result = (await db.raw(
    `with ${riding ? `new_intents as (insert into ?? (ca_id, serial, door, requester, answers, tbs) ${riding.sql} returning ${INTENT_RETURNING}),` : ''}
     incoming (slug, user_id, request, source_address, order_requester, ${CERTIFICATE_COLUMN_LIST}) as (values ${orders.map(() => rowSql).join(', ')}),
     live as (select i.* from incoming i join ?? ca on ca.id = i.ca_id and not ca.revoked),
     inserted as (
       insert into ?? (${CERTIFICATE_COLUMN_LIST}, created, updated)
       select ${certificateColumnsOf('l')}, ?, ? from live l
       returning id, ca_id, serial
     ),
     placed as (
       insert into ?? (created, updated, slug, ca_id, user_id, status, request, certificate_id, source_address, requester)
       select ?, ?, l.slug, l.ca_id, l.user_id, 'issued', l.request, ins.id, l.source_address, l.order_requester
       from live l join inserted ins on ins.ca_id = l.ca_id and ins.serial = l.serial
       returning id, slug, certificate_id
     )${events ? `, ${events.sql}` : ''}
     select 'order' as what, id, slug, certificate_id, null::integer as ca_id, null::text as serial, null::timestamptz as created from placed
     ${riding ? `union all select 'intent', id, null, null, ca_id, serial, created from new_intents` : ''}`,
    [
      ...(riding ? [TABLES.issuanceIntents, ...riding.bindings] : []),
      ...bindings,
      TABLES.cas,
      TABLES.certificates,
      when,
      when,
      TABLES.orders,
      when,
      when,
      ...(events?.bindings ?? []),
    ],
  )) as { rows: Row[] };
  const bySlug = new Map(result.rows.filter((row) => row.what === 'order').map((row) => [String(row.slug), row]));
  const intentRows = new Map(result.rows.filter((row) => row.what === 'intent').map((row) => [intentKey(row.ca_id, row.serial), row]));
  return {
    orders: orders.map((order, i) => {
      const row = bySlug.get(fresh[i]);
      if (!row) return null;
      record?.(certificateStored(order.certificate, fresh[i]));
      return issuedRecord(order, fresh[i], toNumber(row.id), toNumber(row.certificate_id), when);
    }),
    intents: riders.map((intent) => {
      const row = intentRows.get(intentKey(intent.caId, intent.serial));
      if (!row) throw new Error(`createIssuedOrdersWithIntents: the intent of serial ${intent.serial} was not written`);
      return writtenIntent(intent, row);
    }),
  };
}

/** One issued order; a slug another order holds already is drawn again. */
export async function createIssuedOrder(db: Knex, order: NewIssuedOrder, record: RecordEvents | null): Promise<OrderRecord | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      const [issued] = await createIssuedOrders(db, [order], record);
      return issued;
    } catch (e) {
      if (!(e instanceof StoreConflictError && e.field === 'slug') || attempt >= SLUG_ATTEMPTS) throw e;
    }
  }
}
