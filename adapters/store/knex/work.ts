/**
 * Leases of the work still on its own table — REST orders (orders.ts) — claimed, held and let go
 * (docs/DESIGN.md "Work engine"). With jobs.ts, the only file of the store that locks with `SKIP
 * LOCKED` or reads and writes lease columns.
 *
 * A REST order carries its lease: who holds it (`lease_owner`, one name per runner and process) and
 * until when (`lease_expires`). Webhook delivery, the expiry scan and ACME's validations, issuances
 * and expiry are background jobs instead (jobs.ts, migrations 0033 and 0034), where REST orders move
 * next (docs/DESIGN.md "Background jobs"). A row is free when it has no lease or the lease has lapsed. A runner claims free rows with
 * `FOR UPDATE SKIP LOCKED`: runners of several instances on one PostgreSQL take disjoint rows without
 * waiting for each other. The outcome is written with the lease cleared, only while the row is still
 * in the state the runner claimed it in: a runner that stalled
 * past its lease and lost the row to another writes nothing. A runner that dies leaves its lease to
 * lapse, and the work to whichever runner looks next.
 */
import type { Knex } from 'knex';
import { toNullableDate } from './values';

/** Column values of a row (as rows.ts `Row`; not imported from there, which imports this file). */
type Row = Record<string, unknown>;

/**
 * Where-clause: no live lease (REST orders). With `mine`, the runner's
 * own leases count as free (a REST order placed with its runner's lease).
 */
export function leaseFree(now: Date = new Date(), mine?: string): (w: Knex.QueryBuilder) => void {
  return (w) => {
    w.whereNull('lease_expires').orWhere('lease_expires', '<', now);
    if (mine) w.orWhere('lease_owner', mine);
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

/** The lease columns of a finished row. */
export const NO_LEASE: Row = leasedTo(null, null);

/** SQL for `SET`: a finished row's lease cleared. */
export const NO_LEASE_SQL = 'lease_owner = NULL, lease_expires = NULL';

/** Who holds a row's lease and until when, as records carry it (`OrderRecord.leaseOwner`, `leaseExpires`). */
export function leaseOfRow(row: Row): { leaseOwner: string | null; leaseExpires: Date | null } {
  return {
    leaseOwner: row.lease_owner === null || row.lease_owner === undefined ? null : String(row.lease_owner),
    leaseExpires: toNullableDate(row.lease_expires),
  };
}
