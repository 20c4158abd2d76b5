/**
 * REST orders become background jobs (docs/DESIGN.md "Background jobs", "Orders"): every pending
 * order gets its `rest_order` job (reference: the order's id, due at the order's creation so the
 * oldest are taken first); an order leased right now keeps its lease on its job (the instance that
 * placed it finishes it, the others wait for the lease to lapse, as before). From here on an order
 * is claimed only through its job, so the order's own lease columns (migration 0001) are dropped.
 *
 * `ca_api_orders_certificate_idx` (migration 0004) stays: no query of the library looks orders up by
 * certificate any more, but the foreign key `certificate_id … ON DELETE SET NULL` does, for every
 * certificate deleted (a CA deleted with its certificates).
 *
 * `down` adds the lease columns back, hands them the live leases of the pending orders' jobs, and
 * removes the `rest_order` jobs. Literal SQL only: a migration never changes after it is released.
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
  await knex.raw('ALTER TABLE ca_api_orders DROP COLUMN lease_owner, DROP COLUMN lease_expires');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE ca_api_orders ADD COLUMN lease_owner varchar(255) NULL, ADD COLUMN lease_expires timestamptz NULL');
  await knex.raw(`
    UPDATE ca_api_orders o SET lease_owner = j.lease_owner, lease_expires = j.lease_until
    FROM ca_api_jobs j
    WHERE j.kind = 'rest_order' AND j.reference = o.id::text AND j.state = 'pending' AND o.status = 'pending'
      AND j.lease_until > clock_timestamp()`);
  await knex.raw(`DELETE FROM ca_api_jobs WHERE kind = 'rest_order'`);
}
