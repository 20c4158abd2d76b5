/**
 * Leases: how every kind of durable work is claimed, held and let go (docs/DESIGN.md "Work engine").
 * With jobs.ts, the only file of the store that locks with `SKIP LOCKED` or reads and writes lease
 * columns; the queries of the ACME kinds (acme/work.ts, acme/changes.ts) build their statements from these parts.
 *
 * A row of work — an ACME challenge being validated or order being issued — carries its lease: who
 * holds it (`lease_owner`, one name per runner and process) and until when (`lease_expires`). REST
 * orders, webhook delivery and the expiry scan are background jobs instead (jobs.ts, migrations 0033
 * and 0035), where these kinds move next (docs/DESIGN.md "Background jobs"). A row is free when it has no lease or the lease has lapsed. A runner claims free rows with
 * `FOR UPDATE SKIP LOCKED`: runners of several instances on one PostgreSQL take disjoint rows without
 * waiting for each other. The outcome is written with the lease cleared, only while the row is still
 * in the state the runner claimed it in: a runner that stalled
 * past its lease and lost the row to another writes nothing. A runner that dies leaves its lease to
 * lapse, and the work to whichever runner looks next.
 */
import type { Knex } from 'knex';

/** Column values of a row (as rows.ts `Row`; not imported from there, which imports this file). */
type Row = Record<string, unknown>;

/** Where-clause: no live lease (ACME challenges and orders). */
export function leaseFree(now: Date = new Date()): (w: Knex.QueryBuilder) => void {
  return (w) => {
    w.whereNull('lease_expires').orWhere('lease_expires', '<', now);
  };
}

/** Lock the rows `query` selects, passing over those another transaction holds. */
export function skippingLocked(query: Knex.QueryBuilder): Knex.QueryBuilder {
  return query.forUpdate().skipLocked();
}

/** The lease columns of a row leased to `owner` until `expires` (null, null: no lease). */
export function leasedTo(owner: string | null, expires: Date | null): Row {
  return { lease_owner: owner, lease_expires: expires };
}

/** SQL for `SET`: a finished row's lease cleared. */
export const NO_LEASE_SQL = 'lease_owner = NULL, lease_expires = NULL';

/** SQL for `SET`: the lease taken from the columns `owner` and `leased_until` of a VALUES list named `values`. */
export const leaseFromValues = (values: string): string => `lease_owner = ${values}.owner, lease_expires = ${values}.leased_until`;

/**
 * Lease the rows `due` selects (ids, in the order to take them) to `owner` for `leaseMs`: one
 * `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED)`. Returns the rows as updated.
 */
export async function claimLeases(
  db: Knex,
  table: string,
  due: Knex.QueryBuilder,
  owner: string,
  leaseMs: number,
  returning: string | string[] = '*',
): Promise<Row[]> {
  const expires = new Date(Date.now() + leaseMs);
  return (await db(table).whereIn('id', skippingLocked(due)).update(leasedTo(owner, expires)).returning(returning)) as Row[];
}
