/** Queries on `ca_api_orders`. */
import type { Knex } from 'knex';
import { StoreNotFoundError, type NewCertificate, type NewOrder, type OrderFilter, type OrderRecord } from '../../../lib/ports';
import { mappingErrors } from './errors';
import { certificateStored, orderFailed } from './event-data';
import { CERTIFICATE_COLUMN_LIST, CERTIFICATE_PLACEHOLDERS, certificateBindings, certificateColumnsOf } from './certificate-values';
import { actorToJson, orderFromRow, type Row } from './rows';
import { randomSlug, SLUG_ATTEMPTS } from './slug';
import { toJson, toNumber } from './values';
import { TABLES } from './tables';
import type { RecordEvents } from './transaction-events';
import { leasedTo, leaseFree, NO_LEASE, NO_LEASE_SQL, skippingLocked } from './work';

const TABLE = TABLES.orders;

/** The `error` column holds 256 characters, like the original's; a longer reason is cut, not refused. */
const MAX_ERROR_LENGTH = 256;

/** django-ca's error_code for "Could not sign certificate." */
const SIGNING_FAILED = 1;

/** The row of a new, pending order. */
function newOrderRow(order: NewOrder, slug: string, now: Date): Row {
  return {
    created: now,
    updated: now,
    slug,
    ca_id: order.caId,
    user_id: order.userId,
    status: 'pending',
    request: toJson(order.request),
    ...leasedTo(order.lease?.owner ?? null, order.lease?.expires ?? null),
    requester: actorToJson(order.requester),
    source_address: order.requester?.address ?? null,
  };
}

export function createOrder(db: Knex, order: NewOrder): Promise<OrderRecord> {
  return mappingErrors(async () => {
    for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
      // ON CONFLICT DO NOTHING rather than catching the violation: inside a transaction an error
      // would abort the whole transaction on PostgreSQL, a skipped insert does not.
      const [row] = await db(TABLE)
        .insert(newOrderRow(order, randomSlug(), new Date()))
        .onConflict('slug')
        .ignore()
        .returning('*');
      if (row) return orderFromRow({ ...(row as Row), certificate_serial: null });
    }
    throw new Error(`Could not find a free order slug in ${SLUG_ATTEMPTS} attempts`);
  });
}

/**
 * Several new orders in one INSERT (the store's group commit); records in input order. A slug that
 * collided (vanishingly rare) is retried through `createOrder`.
 */
export function createOrders(db: Knex, orders: NewOrder[]): Promise<OrderRecord[]> {
  return mappingErrors(async () => {
    const now = new Date();
    const slugs = new Set<string>();
    while (slugs.size < orders.length) slugs.add(randomSlug()); // distinct within the statement
    const fresh = [...slugs];
    const rows = orders.map((order, i) => newOrderRow(order, fresh[i], now));
    // Only the generated columns come back: the request, the largest column, is known already.
    const inserted = (await db(TABLE).insert(rows).onConflict('slug').ignore().returning(['id', 'slug', 'created', 'updated'])) as Row[];
    const bySlug = new Map(inserted.map((row) => [String(row.slug), row]));
    return Promise.all(
      rows.map(async (row, i) => {
        const stored = bySlug.get(String(row.slug));
        if (!stored) return createOrder(db, orders[i]);
        const { request: _json, ...columns } = row;
        return orderFromRow({
          ...columns,
          ...stored,
          request: orders[i].request,
          certificate_id: null,
          certificate_serial: null,
          error: null,
        });
      }),
    );
  });
}

/** Orders joined with the issued certificate's serial. */
function withSerial(db: Knex): Knex.QueryBuilder {
  return db(`${TABLE} as o`)
    .leftJoin(`${TABLES.certificates} as c`, 'c.id', 'o.certificate_id')
    .select('o.*', 'c.serial as certificate_serial');
}

export async function getOrder(db: Knex, slug: string): Promise<OrderRecord | null> {
  const row = (await withSerial(db).where('o.slug', slug).first()) as Row | undefined;
  return row ? orderFromRow(row) : null;
}

/** One CA's orders, oldest first (`OrderListing`): a page of at most `limit` after `afterId`. */
export async function listOrders(db: Knex, filter: OrderFilter): Promise<OrderRecord[]> {
  const query = withSerial(db).where('o.ca_id', filter.caId).orderBy('o.id', 'asc');
  if (filter.status !== undefined) query.where('o.status', filter.status);
  if (filter.afterId !== undefined) query.where('o.id', '>', filter.afterId);
  if (filter.limit !== undefined) query.limit(filter.limit);
  return ((await query) as Row[]).map((row) => orderFromRow(row));
}

async function getOrderById(db: Knex, id: number): Promise<OrderRecord> {
  const row = (await withSerial(db).where('o.id', id).first()) as Row | undefined;
  if (!row) throw new StoreNotFoundError('order', id);
  return orderFromRow(row);
}

/**
 * Lock up to `limit` pending orders, oldest first, passing over locked ones (work.ts): several
 * workers (processes or instances on one PostgreSQL) claim disjoint sets; the locks last until the
 * caller's transaction ends. Orders whose lease has not yet expired belong to another instance and
 * are left alone.
 */
export async function claimPendingOrders(db: Knex, limit: number, leaseOwner?: string): Promise<OrderRecord[]> {
  const rows = (await skippingLocked(claimable(db, leaseOwner).select('*').orderBy('id', 'asc').limit(limit))) as Row[];
  // Pending orders have no certificate yet (and FOR UPDATE cannot lock the nullable side of a join).
  return rows.map((row) => orderFromRow({ ...row, certificate_serial: null }));
}

/** Pending orders that no live lease holds, oldest first, without locking (the batch worker's read). */
export async function listPendingOrders(db: Knex, limit: number, leaseOwner?: string): Promise<OrderRecord[]> {
  const rows = (await claimable(db, leaseOwner).select('*').orderBy('id', 'asc').limit(limit)) as Row[];
  return rows.map((row) => orderFromRow({ ...row, certificate_serial: null }));
}

/** Orders a worker may take: pending, and not leased to another instance (or the lease has lapsed). */
function claimable(db: Knex, leaseOwner?: string): Knex.QueryBuilder {
  return db(TABLE).where('status', 'pending').andWhere(leaseFree(new Date(), leaseOwner));
}

export async function markOrderIssued(db: Knex, orderId: number, certificateId: number): Promise<OrderRecord> {
  const updated = await db(TABLE)
    .where({ id: orderId })
    .update({
      status: 'issued',
      certificate_id: certificateId,
      error: null,
      error_code: null,
      ...NO_LEASE,
      updated: new Date(),
    });
  if (!updated) throw new StoreNotFoundError('order', orderId);
  return getOrderById(db, orderId);
}

/**
 * Fail an order; `order.failed` recorded unless it had failed already (the row is locked and read
 * as it was before this UPDATE, so of two concurrent failures only the first makes an event).
 */
export async function markOrderFailed(db: Knex, orderId: number, error: string, record: RecordEvents): Promise<OrderRecord> {
  const { rows } = (await db.raw(
    `update ?? as o set status = 'failed', error = ?, error_code = ?, ${NO_LEASE_SQL}, updated = ?
     from (select id, status from ?? where id = ? for update) as before
     where o.id = before.id
     returning before.status as was`,
    [TABLE, error.slice(0, MAX_ERROR_LENGTH), SIGNING_FAILED, new Date(), TABLE, orderId],
  )) as { rows: Row[] };
  if (!rows[0]) throw new StoreNotFoundError('order', orderId);
  const order = await getOrderById(db, orderId);
  if (rows[0].was !== 'failed') record(orderFailed(order));
  return order;
}

/** The ids of those of `ids` still claimable, locked passing over locked ones: the first CTE of a batch's statement. */
function claimedAmong(db: Knex, ids: number[], leaseOwner?: string): Knex.QueryBuilder {
  return skippingLocked(claimable(db, leaseOwner).select('id').whereIn('id', ids));
}

/**
 * Several orders failed at once, in ONE statement: of these orders, those still claimable (locked
 * passing over those another worker holds: `claimedAmong`) marked failed with their reason
 * (cut to `MAX_ERROR_LENGTH`). Returns them as now stored.
 */
export function failOrders(
  db: Knex,
  failed: { orderId: number; reason: string }[],
  record: RecordEvents,
  leaseOwner?: string,
): Promise<OrderRecord[]> {
  return mappingErrors(async () => {
    if (failed.length === 0) return [];
    const claimed = claimedAmong(
      db,
      failed.map((f) => f.orderId),
      leaseOwner,
    );
    const { rows } = (await db.raw(
      `with claimed as ?
       update ?? as o set status = 'failed', error = v.reason, error_code = ?, ${NO_LEASE_SQL}, updated = ?
       from (values ${failed.map(() => '(?::integer, ?::text)').join(', ')}) as v(order_id, reason)
       where o.id = v.order_id and o.id in (select id from claimed)
       returning o.*`,
      [claimed, TABLE, SIGNING_FAILED, new Date(), ...failed.flatMap((f) => [f.orderId, f.reason.slice(0, MAX_ERROR_LENGTH)])],
    )) as { rows: Row[] };
    const orders = rows.map((row) => orderFromRow({ ...row, certificate_serial: null })).sort((a, b) => a.id - b.id);
    for (const order of orders) record(orderFailed(order)); // all were pending: each failed now
    return orders;
  });
}

/**
 * Issue a batch of signed orders with ONE statement and their events (`certificate.issued`, naming the order) recorded:
 * lock the orders still claimable (passing over locked ones), insert the certificates of those, mark
 * them issued. Returns what was stored; an order another worker holds or finished is left alone and
 * its certificate is not stored. Data-modifying CTEs: every part sees one snapshot and commits or
 * fails together.
 */
export function issueOrders(
  db: Knex,
  items: { orderId: number; certificate: NewCertificate }[],
  when: Date,
  record: RecordEvents,
  leaseOwner?: string,
): Promise<{ orderId: number; certificateId: number }[]> {
  return mappingErrors(async () => {
    if (items.length === 0) return [];
    const rowSql = `(?::integer, ${CERTIFICATE_PLACEHOLDERS})`;
    const bindings = items.flatMap(({ orderId, certificate }) => [orderId, ...certificateBindings(certificate)]);
    const claimed = claimedAmong(
      db,
      items.map((i) => i.orderId),
      leaseOwner,
    );
    const result = (await db.raw(
      `with claimed as ?,
       incoming (order_id, ${CERTIFICATE_COLUMN_LIST}) as (values ${items.map(() => rowSql).join(', ')}),
       inserted as (
         insert into ?? (${CERTIFICATE_COLUMN_LIST}, created, updated)
         select ${certificateColumnsOf('i')}, ?, ? from incoming i join claimed on claimed.id = i.order_id
         returning id, ca_id, serial
       ),
       marked as (
         update ?? as o set status = 'issued', certificate_id = ins.id, error = null, error_code = null,
           ${NO_LEASE_SQL}, updated = ?
         from incoming i join inserted ins on ins.ca_id = i.ca_id and ins.serial = i.serial
         where o.id = i.order_id
         returning o.id as order_id, o.slug, ins.id as certificate_id
       )
       select order_id, slug, certificate_id from marked`,
      [claimed, ...bindings, TABLES.certificates, when, when, TABLE, when],
    )) as { rows: Row[] };
    const stored = new Map(result.rows.map((r) => [toNumber(r.order_id), r]));
    // In the order the certificates were inserted, as the trigger wrote them.
    for (const { orderId, certificate } of items) {
      const row = stored.get(orderId);
      if (row) record(certificateStored(certificate, String(row.slug)));
    }
    return result.rows.map((r) => ({ orderId: toNumber(r.order_id), certificateId: toNumber(r.certificate_id) }));
  });
}

/**
 * `OrderRetry.retryFailedOrders`: the orders back to `pending` in one statement, and an
 * `order.retried` event for each recorded (with the actor of the store's write: the operator of
 * `ca-admin`), in id order.
 */
export async function retryFailedOrders(db: Knex, caId: number, record: RecordEvents, slugs?: readonly string[]): Promise<OrderRecord[]> {
  if (slugs?.length === 0) return [];
  const named = slugs ? `AND slug IN (${slugs.map(() => '?').join(', ')})` : '';
  const { rows } = (await db.raw(
    `UPDATE ?? SET status = 'pending', error = NULL, error_code = NULL, ${NO_LEASE_SQL}, updated = ?
      WHERE ca_id = ? AND status = 'failed' ${named} RETURNING *`,
    [TABLE, new Date(), caId, ...(slugs ?? [])],
  )) as { rows: Row[] };
  const retried = rows.map((row) => orderFromRow({ ...row, certificate_serial: null })).sort((a, b) => a.id - b.id);
  for (const order of retried) {
    const profile = (order.request as { profile?: unknown } | null)?.profile;
    record({
      type: 'order.retried',
      caId: order.caId,
      data: { order: order.slug, profile: typeof profile === 'string' ? profile : null },
    });
  }
  return retried;
}
