/** ACME orders (RFC 8555 §7.4) on `ca_api_acme_orders`, with their authorizations and challenges. */
import type { Knex } from 'knex';
import type { AcmeOrderRecord, NewAcmeOrder, OrderCertificate } from '../../../../lib/ports';
import type { Row } from '../rows';
import { randomSlug } from '../slug';
import { TABLES } from '../tables';
import { toJson, toNumber } from '../values';
import { orderFromRow } from './rows';
import { matchKeys, tuples, type SlugKey } from './slug-keys';

const { acmeOrders, acmeAuthorizations, acmeChallenges, certificates } = TABLES;

/** The order columns plus its authorizations' slugs (in identifier order) and its certificate's serial. */
export function orderQuery(db: Knex): Knex.QueryBuilder {
  return db(`${acmeOrders} as o`).select(
    'o.*',
    db.raw(`(SELECT json_agg(a.slug ORDER BY a.id) FROM ?? a WHERE a.order_id = o.id) AS authorization_slugs`, [acmeAuthorizations]),
    db.raw(`(SELECT c.serial FROM ?? c WHERE c.id = o.certificate_id) AS certificate_serial`, [certificates]),
  );
}

/**
 * The order, its authorizations and their challenges in ONE statement (atomic without a transaction,
 * one round trip): slugs are drawn here, the authorizations are inserted in identifier order (their
 * ids keep that order, which `orderQuery` lists them by), each challenge finds its authorization by
 * slug. With `limit`, nothing is written (null) when the account already placed `max` orders since
 * `since` — the rate limit of README "ACME", checked by the same statement.
 */
export async function createOrder(db: Knex, order: NewAcmeOrder, limit?: { max: number; since: Date }): Promise<AcmeOrderRecord | null> {
  const now = new Date();
  const slugs = distinctSlugs(1 + order.authorizations.length + order.authorizations.reduce((n, a) => n + a.challenges.length, 0));
  const orderSlug = slugs.shift() as string;
  const authz = order.authorizations.map((a, position) => ({ ...a, position, slug: slugs.shift() as string }));
  const challenges = authz.flatMap((a) => a.challenges.map((c) => ({ ...c, authzSlug: a.slug, slug: slugs.shift() as string })));
  const underLimit = limit ? `WHERE (SELECT count(*) FROM ?? WHERE account_id = ? AND created >= ?) < ?` : '';
  const result = (await db.raw(
    `WITH o AS (
       INSERT INTO ?? (slug, account_id, ca_id, status, expires, not_before, not_after, identifiers, authorizations_pending, created, updated)
       SELECT ?::text, ?::integer, ?::integer, 'pending', ?::timestamptz, ?::timestamptz, ?::timestamptz, ?::json, ?::integer, ?::timestamptz, ?::timestamptz
       ${underLimit}
       RETURNING *
     ),
     az AS (
       INSERT INTO ?? (slug, order_id, identifier_type, identifier_value, wildcard, status, expires)
       SELECT v.slug, o.id, v.type, v.value, v.wildcard, 'pending', o.expires
         FROM o, (VALUES ${authz.map(() => '(?::text, ?::text, ?::text, ?::boolean, ?::integer)').join(', ')}) AS v (slug, type, value, wildcard, position)
        ORDER BY v.position
       RETURNING id, slug
     ),
     ch AS (
       INSERT INTO ?? (slug, authorization_id, type, token, status)
       SELECT v.slug, az.id, v.type, v.token, 'pending'
         FROM az JOIN (VALUES ${challenges.map(() => '(?::text, ?::text, ?::text, ?::text)').join(', ')}) AS v (slug, authz_slug, type, token) ON v.authz_slug = az.slug
     )
     SELECT * FROM o`,
    [
      acmeOrders,
      orderSlug,
      order.accountId,
      order.caId,
      order.expires,
      order.notBefore,
      order.notAfter,
      toJson(order.identifiers),
      authz.length,
      now,
      now,
      ...(limit ? [acmeOrders, order.accountId, limit.since, limit.max] : []),
      acmeAuthorizations,
      ...authz.flatMap((a) => [a.slug, a.identifier.type, a.identifier.value, a.wildcard, a.position]),
      acmeChallenges,
      ...challenges.flatMap((c) => [c.slug, c.authzSlug, c.type, c.token]),
    ],
  )) as { rows: Row[] };
  const [row] = result.rows;
  if (!row) return null;
  // What orderQuery would read back: the row as inserted, its authorizations' slugs, no certificate yet.
  return orderFromRow({ ...row, authorization_slugs: authz.map((a) => a.slug), certificate_serial: null });
}

/** `n` slugs, distinct from each other (a clash with a stored one fails the statement's unique index). */
function distinctSlugs(n: number): string[] {
  const slugs = new Set<string>();
  while (slugs.size < n) slugs.add(randomSlug());
  return [...slugs];
}

export async function findOrderById(db: Knex, id: number): Promise<AcmeOrderRecord | null> {
  const row = (await orderQuery(db).where('o.id', id).first()) as Row | undefined;
  return row ? orderFromRow(row) : null;
}

/** Several orders by (CA, slug) in one statement; results in input order, null where there is none. */
export async function findOrders(db: Knex, keys: readonly SlugKey[]): Promise<(AcmeOrderRecord | null)[]> {
  const rows = (await orderQuery(db).whereIn(['o.ca_id', 'o.slug'], tuples(keys))) as Row[];
  return matchKeys(keys, rows, (r) => [r.ca_id, r.slug], orderFromRow);
}

/** Orders with their certificate's DER (null until it has one), by (CA, slug): what downloads need, in one statement. */
export async function findOrderCertificates(db: Knex, keys: readonly SlugKey[]): Promise<(OrderCertificate | null)[]> {
  const rows = (await orderQuery(db)
    .select(db.raw(`(SELECT c.der FROM ?? c WHERE c.id = o.certificate_id) AS certificate_der`, [certificates]))
    .whereIn(['o.ca_id', 'o.slug'], tuples(keys))) as Row[];
  return matchKeys(
    keys,
    rows,
    (r) => [r.ca_id, r.slug],
    (row) => {
      const der = row.certificate_der;
      return { order: orderFromRow(row), der: der === null || der === undefined ? null : Buffer.from(der as Uint8Array) };
    },
  );
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
