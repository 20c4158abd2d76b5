/**
 * One table of background jobs (docs/DESIGN.md "Background jobs"): a row per piece of work of a kind
 * (`webhook_delivery`: one endpoint's events after its position; `expiry_scan`: the recurring scan for
 * expiring certificates), its reference (what it works on, as text), when it may run next (`run_at`),
 * its failed attempts, the lease of the runner working on it (`lease_owner`, `lease_until`, on the
 * database's clock) and the last error. `state`: `pending` (waiting for `run_at`, or running while a
 * live lease holds it), `done`, `failed` (past its attempts: waits for `ca-admin retry_job`).
 *
 * One row per kind and reference: enqueueing a reference whose job is done makes that row pending
 * again, so that work that recurs (an endpoint's next events) does not grow the table. The claim
 * reads pending rows by `run_at` (the partial index).
 *
 * Webhook endpoints are no longer leased themselves: an endpoint with events to deliver, or in
 * back-off, gets a pending job (its back-off as `run_at`, its attempts). The lease columns of
 * migration 0012 stay, unused and as they were (no migration drops a column: a database restored or
 * migrated down keeps its values). The expiry scan gets its one recurring job. `down` hands the
 * endpoints the live leases of their jobs (the back-off stayed on the endpoint: `next_attempt`).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE ca_api_jobs (
      id bigserial PRIMARY KEY,
      kind varchar(40) NOT NULL,
      reference text NOT NULL,
      state varchar(10) NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
      run_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      attempts integer NOT NULL DEFAULT 0,
      max_attempts integer NULL CHECK (max_attempts IS NULL OR max_attempts > 0),
      lease_owner varchar(64) NULL,
      lease_until timestamptz NULL,
      last_error text NULL,
      created timestamptz NOT NULL DEFAULT clock_timestamp(),
      updated timestamptz NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT ca_api_jobs_kind_reference UNIQUE (kind, reference)
    )`);
  await knex.raw(`CREATE INDEX ca_api_jobs_due ON ca_api_jobs (run_at) WHERE state = 'pending'`);
  await knex.raw(`CREATE INDEX ca_api_jobs_kind_state ON ca_api_jobs (kind, state, id)`);

  // Today's pending deliveries: an endpoint behind the outbox, in back-off, or leased right now.
  await knex.raw(`
    INSERT INTO ca_api_jobs (kind, reference, run_at, attempts, last_error)
    SELECT 'webhook_delivery', e.id::text, coalesce(e.next_attempt, clock_timestamp()), e.attempts, e.last_error
    FROM ca_api_webhook_endpoints e
    WHERE e.enabled AND (e.position < (SELECT coalesce(max(id), 0) FROM ca_api_events) OR e.next_attempt IS NOT NULL OR e.lease_until IS NOT NULL)
    ORDER BY e.id`);
  await knex.raw(`INSERT INTO ca_api_jobs (kind, reference) VALUES ('expiry_scan', 'certificates')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE ca_api_webhook_endpoints e SET lease_owner = j.lease_owner, lease_until = j.lease_until
    FROM ca_api_jobs j
    WHERE j.kind = 'webhook_delivery' AND j.reference = e.id::text AND j.state = 'pending' AND j.lease_until > clock_timestamp()`);
  await knex.raw('DROP TABLE ca_api_jobs');
}
