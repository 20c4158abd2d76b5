/**
 * Queries on `ca_api_orders`. A pending order is worked on through its `rest_order` job (jobs.ts,
 * migration 0035): written with it, claimed only through `JobStore.claim`, and completed in the
 * statement that issues or fails the order (docs/DESIGN.md "Orders").
 */
import type { Knex } from 'knex';
import {
  JOB_KINDS,
  StoreNotFoundError,
  type Actor,
  type NewCertificate,
  type NewOrder,
  type OrderFilter,
  type OrderRecord,
} from '../../../lib/ports';
import { eventsInStatement } from './event-writer';
import {
  completeHeldJobsSql,
  completeJobSql,
  enqueueSelectedSql,
  insertLeasedJobsSql,
  jobLeaseAsRecord,
  releaseHeldJobs,
  withJobLease,
} from './jobs';
import { mappingErrors } from './errors';
import { certificateStored, orderFailed } from './event-data';
import { CERTIFICATE_COLUMN_LIST, CERTIFICATE_PLACEHOLDERS, certificateBindings, certificateColumnsOf } from './certificate-values';
import { actorToJson, orderFromRow, type Row } from './rows';
import { randomSlug, SLUG_ATTEMPTS } from './slug';
import { toJson, toNumber } from './values';
import { TABLES } from './tables';
import type { NewEvent, RecordEvents } from './transaction-events';

const TABLE = TABLES.orders;

/** An event of a write appended in its own statement: named by `actor` unless it names its own. */
const naming = (event: NewEvent, actor: Actor | null) => ({ ...event, actor: event.actor === undefined ? actor : event.actor });

/** The `error` column holds 256 characters, like the original's; a longer reason is cut, not refused. */
const MAX_ERROR_LENGTH = 256;

/** django-ca's error_code for "Could not sign certificate." */
const SIGNING_FAILED = 1;

/**
 * New pending orders and their `rest_order` jobs in ONE statement: the jobs are due now and leased to
 * the orders' runner until the orders' lease expires (`NewOrder.lease`), so that other instances take
 * them only once that lapses (docs/DESIGN.md "Orders"). An order whose slug is taken already is not
 * written (nor its job). Returns the rows written, with their jobs' leases.
 */
async function insertPendingOrders(db: Knex, orders: readonly NewOrder[], slugs: readonly string[]): Promise<Row[]> {
  const now = new Date();
  const rowSql = '(?::text, ?::integer, ?::integer, ?::jsonb, ?::json, ?::text, ?::text, ?::timestamptz)';
  const bindings = orders.flatMap((order, i) => [
    slugs[i],
    order.caId,
    order.userId,
    toJson(order.request),
    actorToJson(order.requester),
    order.requester?.address ?? null,
    order.lease?.owner ?? null,
    order.lease?.expires ?? null,
  ]);
  const { rows } = (await db.raw(
    `with incoming (slug, ca_id, user_id, request, requester, source_address, owner, until) as (values ${orders.map(() => rowSql).join(', ')}),
     placed as (
       insert into ?? (created, updated, slug, ca_id, user_id, status, request, requester, source_address)
       select ?, ?, slug, ca_id, user_id, 'pending', request, requester, source_address from incoming
       on conflict (slug) do nothing
       returning id, slug, created, updated
     ),
     queued as (${insertLeasedJobsSql(JOB_KINDS.restOrder, 'select p.id::text as reference, i.owner, i.until from placed p join incoming i on i.slug = p.slug')})
     select p.id, p.slug, p.created, p.updated, ${jobLeaseAsRecord('q')}
     from placed p join queued q on q.reference = p.id::text`,
    [...bindings, TABLE, now, now],
  )) as { rows: Row[] };
  return rows;
}

/** The record of a new order written as `written` (its generated columns and its job's lease). */
function pendingRecord(order: NewOrder, written: Row): OrderRecord {
  return orderFromRow({
    ...written,
    ca_id: order.caId,
    user_id: order.userId,
    status: 'pending',
    request: order.request,
    requester: actorToJson(order.requester),
    certificate_id: null,
    certificate_serial: null,
    error: null,
  });
}

export function createOrder(db: Knex, order: NewOrder): Promise<OrderRecord> {
  return mappingErrors(async () => {
    for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
      // ON CONFLICT DO NOTHING rather than catching the violation: inside a transaction an error
      // would abort the whole transaction on PostgreSQL, a skipped insert does not.
      const [row] = await insertPendingOrders(db, [order], [randomSlug()]);
      if (row) return pendingRecord(order, row);
    }
    throw new Error(`Could not find a free order slug in ${SLUG_ATTEMPTS} attempts`);
  });
}

/**
 * Several new orders in one INSERT (the store's group commit), each with its job; records in input
 * order. A slug that collided (vanishingly rare) is retried through `createOrder`.
 */
export function createOrders(db: Knex, orders: NewOrder[]): Promise<OrderRecord[]> {
  return mappingErrors(async () => {
    const slugs = new Set<string>();
    while (slugs.size < orders.length) slugs.add(randomSlug()); // distinct within the statement
    const fresh = [...slugs];
    // Only the generated columns come back: the request, the largest column, is known already.
    const bySlug = new Map((await insertPendingOrders(db, orders, fresh)).map((row) => [String(row.slug), row]));
    return Promise.all(
      orders.map(async (order, i) => {
        const written = bySlug.get(fresh[i]);
        return written ? pendingRecord(order, written) : createOrder(db, order);
      }),
    );
  });
}

/** Orders joined with the issued certificate's serial, and a pending order with its job's lease (`leaseOwner`, `leaseExpires`). */
function withSerial(db: Knex): Knex.QueryBuilder {
  const orders = db(`${TABLE} as o`)
    .leftJoin(`${TABLES.certificates} as c`, 'c.id', 'o.certificate_id')
    .select('o.*', 'c.serial as certificate_serial');
  return withJobLease(db, orders, JOB_KINDS.restOrder, 'o.id::text');
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

/** Those of the orders `ids` that are still pending, without locking anything (`BatchOrderStore.pendingOrders`). */
export async function pendingOrders(db: Knex, ids: readonly number[]): Promise<OrderRecord[]> {
  if (ids.length === 0) return [];
  const rows = (await db(TABLE)
    .where('status', 'pending')
    .whereIn('id', [...ids])
    .orderBy('id', 'asc')) as Row[];
  return rows.map((row) => orderFromRow({ ...row, certificate_serial: null }));
}

/**
 * SQL: the `rest_order` jobs of the pending orders among `incoming` (a CTE with `order_id`) that the
 * owner bound at the `?` holds, completed (jobs.ts): CTEs `held_jobs` and `held` (their `order_id`s).
 */
const HELD_JOBS = `held_jobs as (${completeHeldJobsSql(
  JOB_KINDS.restOrder,
  `select o.id::text from ${TABLE} o join incoming i on i.order_id = o.id where o.status = 'pending'`,
)}),
       held as (select reference::integer as order_id from held_jobs)`;

/** SQL: the pending `rest_order` job of the order bound at the `?` completed, whoever holds it. */
const COMPLETE_ORDER_JOB = completeJobSql(JOB_KINDS.restOrder);

/** The jobs of `orderIds` that `owner` holds let go (`BatchOrderStore.releaseOrderJobs`). */
export function releaseOrderJobs(db: Knex, orderIds: readonly number[], owner: string): Promise<void> {
  return releaseHeldJobs(db, JOB_KINDS.restOrder, orderIds.map(String), owner);
}

export async function markOrderIssued(db: Knex, orderId: number, certificateId: number): Promise<OrderRecord> {
  const updated = await db(TABLE).where({ id: orderId }).update({
    status: 'issued',
    certificate_id: certificateId,
    error: null,
    error_code: null,
    updated: new Date(),
  });
  if (!updated) throw new StoreNotFoundError('order', orderId);
  await db.raw(COMPLETE_ORDER_JOB, [String(orderId)]); // its job ends with it (the caller's transaction)
  return getOrderById(db, orderId);
}

/**
 * Fail an order, and complete its job; `order.failed` recorded unless it had failed already (the
 * row is locked and read as it was before this UPDATE, so of two concurrent failures only the first
 * makes an event).
 */
export async function markOrderFailed(db: Knex, orderId: number, error: string, record: RecordEvents): Promise<OrderRecord> {
  const { rows } = (await db.raw(
    `with done as (${COMPLETE_ORDER_JOB})
     update ?? as o set status = 'failed', error = ?, error_code = ?, updated = ?
     from (select id, status from ?? where id = ? for update) as before
     where o.id = before.id
     returning before.status as was`,
    [String(orderId), TABLE, error.slice(0, MAX_ERROR_LENGTH), SIGNING_FAILED, new Date(), TABLE, orderId],
  )) as { rows: Row[] };
  if (!rows[0]) throw new StoreNotFoundError('order', orderId);
  const order = await getOrderById(db, orderId);
  if (rows[0].was !== 'failed') record(orderFailed(order));
  return order;
}

/**
 * Several orders failed at once, in ONE statement with their jobs' completion and their `order.failed`
 * events: of these orders, the pending ones whose job `leaseOwner` holds, marked failed with their
 * reason (cut to `MAX_ERROR_LENGTH`). The events are recorded into the open store transaction's; without
 * one, the statement appends them itself (event-writer.ts `eventsInStatement`). Returns the orders
 * failed, as now stored.
 */
export function failOrders(
  db: Knex,
  failed: { order: OrderRecord; reason: string }[],
  leaseOwner: string,
  record: RecordEvents | null,
  actor: Actor | null,
): Promise<OrderRecord[]> {
  return mappingErrors(async () => {
    if (failed.length === 0) return [];
    const reasons = failed.map((f) => ({ order: f.order, reason: f.reason.slice(0, MAX_ERROR_LENGTH) }));
    const eventOf = (f: (typeof reasons)[number]) => orderFailed({ ...f.order, error: f.reason });
    const events = record
      ? null
      : eventsInStatement(
          reasons.map((f) => ({ key: String(f.order.id), event: naming(eventOf(f), actor) })),
          'select id::text from marked',
        );
    const { rows } = (await db.raw(
      `with incoming (order_id, reason) as (values ${reasons.map(() => '(?::integer, ?::text)').join(', ')}),
       ${HELD_JOBS},
       marked as (
         update ?? as o set status = 'failed', error = i.reason, error_code = ?, updated = ?
         from incoming i join held h on h.order_id = i.order_id
         where o.id = i.order_id
         returning o.*
       )${events ? `, ${events.sql}` : ''}
       select * from marked`,
      [...reasons.flatMap((f) => [f.order.id, f.reason]), leaseOwner, TABLE, SIGNING_FAILED, new Date(), ...(events?.bindings ?? [])],
    )) as { rows: Row[] };
    const orders = rows.map((row) => orderFromRow({ ...row, certificate_serial: null })).sort((a, b) => a.id - b.id);
    const marked = new Set(orders.map((o) => o.id));
    // All were pending: each failed now.
    for (const f of reasons) if (record && marked.has(f.order.id)) record(eventOf(f));
    return orders;
  });
}

/**
 * Issue a batch of signed orders with ONE statement: of these orders, the pending ones whose job
 * `leaseOwner` holds get their certificates inserted, are marked issued, and their jobs completed, with
 * their events (`certificate.issued`, naming the order) in the statement (event-writer.ts
 * `eventsInStatement`) or, inside a store transaction, recorded into its events. Returns what was stored; an order
 * whose job another runner holds (or finished) is left alone and its certificate is not stored.
 * Data-modifying CTEs: every part sees one snapshot and commits or fails together.
 */
export function issueOrders(
  db: Knex,
  items: { order: OrderRecord; certificate: NewCertificate }[],
  when: Date,
  leaseOwner: string,
  record: RecordEvents | null,
  actor: Actor | null,
): Promise<{ orderId: number; certificateId: number }[]> {
  return mappingErrors(async () => {
    if (items.length === 0) return [];
    const rowSql = `(?::integer, ${CERTIFICATE_PLACEHOLDERS})`;
    const bindings = items.flatMap(({ order, certificate }) => [order.id, ...certificateBindings(certificate)]);
    const events = record
      ? null
      : eventsInStatement(
          items.map(({ order, certificate }) => ({ key: String(order.id), event: certificateStored(certificate, order.slug, actor) })),
          'select order_id::text from marked',
        );
    const result = (await db.raw(
      `with incoming (order_id, ${CERTIFICATE_COLUMN_LIST}) as (values ${items.map(() => rowSql).join(', ')}),
       ${HELD_JOBS},
       inserted as (
         insert into ?? (${CERTIFICATE_COLUMN_LIST}, created, updated)
         select ${certificateColumnsOf('i')}, ?, ? from incoming i join held h on h.order_id = i.order_id
         returning id, ca_id, serial
       ),
       marked as (
         update ?? as o set status = 'issued', certificate_id = ins.id, error = null, error_code = null, updated = ?
         from incoming i join inserted ins on ins.ca_id = i.ca_id and ins.serial = i.serial
         where o.id = i.order_id
         returning o.id as order_id, o.slug, ins.id as certificate_id
       )${events ? `, ${events.sql}` : ''}
       select order_id, slug, certificate_id from marked`,
      [...bindings, leaseOwner, TABLES.certificates, when, when, TABLE, when, ...(events?.bindings ?? [])],
    )) as { rows: Row[] };
    const stored = new Map(result.rows.map((r) => [toNumber(r.order_id), r]));
    // In the order the certificates were inserted, as the trigger wrote them.
    for (const { order, certificate } of items) {
      const row = stored.get(order.id);
      if (row && record) record(certificateStored(certificate, String(row.slug)));
    }
    return result.rows.map((r) => ({ orderId: toNumber(r.order_id), certificateId: toNumber(r.certificate_id) }));
  });
}

/**
 * `OrderRetry.retryFailedOrders`: the orders back to `pending` with their jobs due again in one statement, and an
 * `order.retried` event for each recorded (with the actor of the store's write: the operator of
 * `ca-admin`), in id order.
 */
export async function retryFailedOrders(db: Knex, caId: number, record: RecordEvents, slugs?: readonly string[]): Promise<OrderRecord[]> {
  if (slugs?.length === 0) return [];
  const named = slugs ? `AND slug IN (${slugs.map(() => '?').join(', ')})` : '';
  // Their jobs are due again, in the same statement (a failed order's job is done: made pending again).
  const queued = enqueueSelectedSql(
    JOB_KINDS.restOrder,
    'SELECT id::text AS reference, clock_timestamp() AS run_at, NULL::integer AS max_attempts FROM retried',
  );
  const { rows } = (await db.raw(
    `WITH retried AS (
       UPDATE ?? SET status = 'pending', error = NULL, error_code = NULL, updated = ?
        WHERE ca_id = ? AND status = 'failed' ${named} RETURNING *
     ),
     queued AS (${queued})
     SELECT * FROM retried`,
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
