/** ACME orders (RFC 8555 §7.4) on `ca_api_acme_orders`, with their authorizations and challenges. */
import type { Knex } from 'knex';
import type { AcmeOrderRecord, NewAcmeOrder } from '../../../../lib/ports';
import type { Row } from '../rows';
import { randomSlug } from '../slug';
import { TABLES } from '../tables';
import { toJson, toNumber } from '../values';
import { orderFromRow } from './rows';

const { acmeOrders, acmeAuthorizations, acmeChallenges, certificates } = TABLES;

/** The order columns plus its authorizations' slugs (in identifier order) and its certificate's serial. */
export function orderQuery(db: Knex): Knex.QueryBuilder {
  return db(`${acmeOrders} as o`).select(
    'o.*',
    db.raw(`(SELECT json_agg(a.slug ORDER BY a.id) FROM ?? a WHERE a.order_id = o.id) AS authorization_slugs`, [acmeAuthorizations]),
    db.raw(`(SELECT c.serial FROM ?? c WHERE c.id = o.certificate_id) AS certificate_serial`, [certificates]),
  );
}

/** Call inside a transaction: the order, its authorizations and their challenges appear together. */
export async function createOrder(db: Knex, order: NewAcmeOrder): Promise<AcmeOrderRecord> {
  const now = new Date();
  const [row] = (await db(acmeOrders)
    .insert({
      slug: randomSlug(),
      account_id: order.accountId,
      ca_id: order.caId,
      status: 'pending',
      expires: order.expires,
      not_before: order.notBefore,
      not_after: order.notAfter,
      identifiers: toJson(order.identifiers),
      created: now,
      updated: now,
    })
    .returning('*')) as Row[];
  const orderId = toNumber(row.id);
  const authzRows = (await db(acmeAuthorizations)
    .insert(
      order.authorizations.map((a) => ({
        slug: randomSlug(),
        order_id: orderId,
        identifier_type: a.identifier.type,
        identifier_value: a.identifier.value,
        wildcard: a.wildcard,
        status: 'pending',
        expires: order.expires,
      })),
    )
    .returning(['id', 'slug'])) as Row[];
  // RETURNING follows the VALUES order for a plain multi-row INSERT.
  const challengeRows = order.authorizations.flatMap((a, i) =>
    a.challenges.map((c) => ({
      slug: randomSlug(),
      authorization_id: toNumber(authzRows[i].id),
      type: c.type,
      token: c.token,
      status: 'pending',
    })),
  );
  if (challengeRows.length > 0) await db(acmeChallenges).insert(challengeRows);
  // What orderQuery would read back: the row as inserted, its authorizations' slugs, no certificate yet.
  return orderFromRow({ ...row, authorization_slugs: authzRows.map((a) => String(a.slug)), certificate_serial: null });
}

export async function findOrderById(db: Knex, id: number): Promise<AcmeOrderRecord | null> {
  const row = (await orderQuery(db).where('o.id', id).first()) as Row | undefined;
  return row ? orderFromRow(row) : null;
}

export async function findOrder(db: Knex, caId: number, slug: string): Promise<AcmeOrderRecord | null> {
  const row = (await orderQuery(db).where({ 'o.ca_id': caId, 'o.slug': slug }).first()) as Row | undefined;
  return row ? orderFromRow(row) : null;
}

export async function findOrderOfCertificate(db: Knex, certificateId: number): Promise<AcmeOrderRecord | null> {
  const row = (await orderQuery(db).where('o.certificate_id', certificateId).first()) as Row | undefined;
  return row ? orderFromRow(row) : null;
}

export async function listOrders(
  db: Knex,
  accountId: number,
  page: { beforeId?: number; limit: number },
): Promise<{ slugs: string[]; nextBeforeId: number | null }> {
  let q = db(acmeOrders).select('id', 'slug').where({ account_id: accountId });
  if (page.beforeId !== undefined) q = q.andWhere('id', '<', page.beforeId);
  const rows = (await q.orderBy('id', 'desc').limit(page.limit + 1)) as Row[];
  const shown = rows.slice(0, page.limit);
  const more = rows.length > page.limit;
  return { slugs: shown.map((r) => String(r.slug)), nextBeforeId: more ? toNumber(shown[shown.length - 1].id) : null };
}

export async function countOrdersSince(db: Knex, accountId: number, since: Date): Promise<number> {
  const row = (await db(acmeOrders).where({ account_id: accountId }).andWhere('created', '>=', since).count({ n: '*' }).first()) as Row;
  return toNumber(row.n);
}

/** Orders and authorizations past their `expires` (RFC 8555 §7.1.6): orders not yet finalized become invalid. */
export async function expire(db: Knex, now: Date): Promise<number> {
  const error = toJson({ type: 'urn:ietf:params:acme:error:malformed', detail: 'The order expired before it was finalized.' });
  const rows = (await db(acmeOrders)
    .whereIn('status', ['pending', 'ready'])
    .andWhere('expires', '<=', now)
    .update({ status: 'invalid', error, updated: now })
    .returning('id')) as Row[];
  await db(acmeAuthorizations).where({ status: 'pending' }).andWhere('expires', '<=', now).update({ status: 'expired' });
  return rows.length;
}
