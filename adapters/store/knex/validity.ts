/**
 * The validity window as a WHERE clause. The rule lives in lib/ports/validity.ts (`not_before < now <=
 * not_after`, the window clients of the API observe: docs/COMPATIBILITY.md §1); this only turns its column/operator data into knex calls, so the CA list (`validAt`)
 * and the certificate list (without `includeExpired`) filter exactly as `isWithinValidity` decides.
 */
import type { Knex } from 'knex';
import { VALIDITY_WINDOW } from '../../../lib/ports/validity';

/** Restrict `query` to rows whose validity window contains `now`. */
export function whereWithinValidity<Q extends Knex.QueryBuilder>(query: Q, now: Date): Q {
  for (const { column, op } of Object.values(VALIDITY_WINDOW)) query.where(column, op, now);
  return query;
}

/** The same window as a raw SQL condition and its bindings, for `count(*) filter (where …)` (certificate-statistics.ts). */
export function withinValiditySql(now: Date): { sql: string; bindings: Date[] } {
  const ends = Object.values(VALIDITY_WINDOW);
  return { sql: ends.map(({ column, op }) => `${column} ${op} ?`).join(' and '), bindings: ends.map(() => now) };
}

/** Past the window's end, i.e. expired (a row not yet valid is not): `not_after < ?`, bound to `now`. */
export const EXPIRED_SQL = `${VALIDITY_WINDOW.notAfter.column} < ?`;

/** Restrict `query` to rows expired at `now` (`onlyExpired` of the certificate list). */
export function whereExpired<Q extends Knex.QueryBuilder>(query: Q, now: Date): Q {
  query.whereRaw(EXPIRED_SQL, [now]);
  return query;
}
