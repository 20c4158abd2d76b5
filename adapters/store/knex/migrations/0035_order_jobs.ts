/**
 * REST orders become background jobs (docs/DESIGN.md "Background jobs", "Orders"): every pending
 * order gets its `rest_order` job (reference: the order's id, due at the order's creation so the
 * oldest are taken first); an order leased right now keeps its lease on its job (the instance that
 * placed it finishes it, the others wait for the lease to lapse, as before). From here on an order
 * is claimed only through its job and its lease is its job's.
 *
 * The order's own lease columns (migration 0001) stay, unused and as they were: no migration drops a
 * column (a database restored or migrated down keeps its values; test/store/upgrade.test.ts), as
 * migration 0033 left the webhook endpoints' lease columns. `ca_api_orders_certificate_idx`
 * (migration 0004) stays too: no query of the library looks orders up by certificate any more, but
 * the foreign key `certificate_id … ON DELETE SET NULL` does, for every certificate deleted (a CA
 * deleted with its certificates).
 *
 * `down` hands the pending orders the live leases of their jobs and removes the `rest_order` jobs.
 * Literal SQL only: a migration never changes after it is released.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    INSERT INTO ca_api_jobs (kind, reference, run_at, lease_owner, lease_until)
    SELECT 'rest_order', o.id::text, o.created,
      CASE WHEN o.lease_expires > clock_timestamp() THEN left(o.lease_owner, 64) END,
      CASE WHEN o.lease_expires > clock_timestamp() THEN o.lease_expires END
    FROM ca_api_orders o
    WHERE o.status = 'pending'
    ORDER BY o.id
    ON CONFLICT (kind, reference) DO NOTHING`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE ca_api_orders o SET lease_owner = j.lease_owner, lease_expires = j.lease_until
    FROM ca_api_jobs j
    WHERE j.kind = 'rest_order' AND j.reference = o.id::text AND j.state = 'pending' AND o.status = 'pending'
      AND j.lease_until > clock_timestamp()`);
  await knex.raw(`DELETE FROM ca_api_jobs WHERE kind = 'rest_order'`);
}
