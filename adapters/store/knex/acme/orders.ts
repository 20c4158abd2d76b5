/** ACME orders (RFC 8555 §7.4) on `ca_api_acme_orders`, with their authorizations and challenges. */
import type { Knex } from 'knex';
import type { AcmeBulkChange, AcmeOrderRecord, NewAcmeOrder, OrderCertificate } from '../../../../lib/ports';
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

/** A new order, and the rate limit it is placed under (`createOrders`). */
export interface OrderPlacement {
  order: NewAcmeOrder;
  /** Nothing is written (null) when the account already placed `max` orders since `since`. */
  limit?: { max: number; since: Date };
}

/**
 * Orders, their authorizations and their challenges in ONE statement (atomic without a transaction,
 * one round trip for the orders of concurrent requests): slugs are drawn here, each order's
 * authorizations are inserted in identifier order (their ids keep that order, which `orderQuery`
 * lists them by), each challenge finds its authorization by slug. An order past its `limit` — the
 * rate limit of docs/guides/acme.md, counted by the same statement — is not written (null); orders of one
 * account in one statement do not count each other, so a burst may pass the limit by a few.
 */
export async function createOrders(db: Knex, placements: readonly OrderPlacement[]): Promise<(AcmeOrderRecord | null)[]> {
  const now = new Date();
  const size = placements.reduce((n, p) => n + 1 + p.order.authorizations.reduce((m, a) => m + 1 + a.challenges.length, 0), 0);
  const slugs = distinctSlugs(size);
  const planned = placements.map(({ order, limit }) => {
    const slug = slugs.shift() as string;
    const authz = order.authorizations.map((a, position) => ({ ...a, position, slug: slugs.shift() as string }));
    const challenges = authz.flatMap((a) => a.challenges.map((c) => ({ ...c, authzSlug: a.slug, slug: slugs.shift() as string })));
    return { order, limit, slug, authz, challenges };
  });
  const authz = planned.flatMap((p) => p.authz.map((a) => ({ ...a, orderSlug: p.slug })));
  const challenges = planned.flatMap((p) => p.challenges);
  const result = (await db.raw(
    `WITH vo (slug, account_id, ca_id, expires, not_before, not_after, identifiers, pending, max, since) AS (
       VALUES ${planned.map(() => '(?::text, ?::integer, ?::integer, ?::timestamptz, ?::timestamptz, ?::timestamptz, ?::json, ?::integer, ?::integer, ?::timestamptz)').join(', ')}
     ),
     o AS (
       INSERT INTO ?? (slug, account_id, ca_id, status, expires, not_before, not_after, identifiers, authorizations_pending, created, updated)
       SELECT vo.slug, vo.account_id, vo.ca_id, 'pending', vo.expires, vo.not_before, vo.not_after, vo.identifiers, vo.pending, ?, ?
         FROM vo
        WHERE vo.max IS NULL OR (SELECT count(*) FROM ?? x WHERE x.account_id = vo.account_id AND x.created >= vo.since) < vo.max
       RETURNING *
     ),
     az AS (
       INSERT INTO ?? (slug, order_id, identifier_type, identifier_value, wildcard, status, expires)
       SELECT v.slug, o.id, v.type, v.value, v.wildcard, 'pending', o.expires
         FROM o JOIN (VALUES ${authz.map(() => '(?::text, ?::text, ?::text, ?::text, ?::boolean, ?::integer)').join(', ')})
              AS v (slug, order_slug, type, value, wildcard, position) ON v.order_slug = o.slug
        ORDER BY o.id, v.position
       RETURNING id, slug
     ),
     ch AS (
       INSERT INTO ?? (slug, authorization_id, type, token, status)
       SELECT v.slug, az.id, v.type, v.token, 'pending'
         FROM az JOIN (VALUES ${challenges.map(() => '(?::text, ?::text, ?::text, ?::text)').join(', ')}) AS v (slug, authz_slug, type, token) ON v.authz_slug = az.slug
     )
     SELECT * FROM o`,
    [
      ...planned.flatMap(({ order, limit, slug, authz: a }) => [
        slug,
        order.accountId,
        order.caId,
        order.expires,
        order.notBefore,
        order.notAfter,
        toJson(order.identifiers),
        a.length,
        limit?.max ?? null,
        limit?.since ?? null,
      ]),
      acmeOrders,
      now,
      now,
      acmeOrders,
      acmeAuthorizations,
      ...authz.flatMap((a) => [a.slug, a.orderSlug, a.identifier.type, a.identifier.value, a.wildcard, a.position]),
      acmeChallenges,
      ...challenges.flatMap((c) => [c.slug, c.authzSlug, c.type, c.token]),
    ],
  )) as { rows: Row[] };
  const bySlug = new Map(result.rows.map((row) => [String(row.slug), row]));
  return planned.map((p) => {
    const row = bySlug.get(p.slug);
    // What orderQuery would read back: the row as inserted, its authorizations' slugs, no certificate yet.
    return row ? orderFromRow({ ...row, authorization_slugs: p.authz.map((a) => a.slug), certificate_serial: null }) : null;
  });
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

/** `change` (lib/acme/state-machine.ts `onExpiry`) applied to the orders and authorizations past their `expires`. */
export async function expire(db: Knex, now: Date, change: AcmeBulkChange): Promise<number> {
  let expired = 0;
  if (change.orders) {
    const { from, to, error } = change.orders;
    const rows = (await db(acmeOrders)
      .whereIn('status', [...from])
      .andWhere('expires', '<=', now)
      .update({ status: to, error: toJson(error), updated: now })
      .returning('id')) as Row[];
    expired = rows.length;
  }
  if (change.authorizations) {
    const { from, to } = change.authorizations;
    await db(acmeAuthorizations)
      .whereIn('status', [...from])
      .andWhere('expires', '<=', now)
      .update({ status: to });
  }
  return expired;
}
