/**
 * ACME's durable work becomes background jobs (docs/DESIGN.md "Background jobs"; the table of
 * migration 0033): a challenge being validated has an `acme_validation` job (reference: its id), an
 * order being issued an `acme_issuance` job (reference: its id), and the expiry of orders and
 * authorizations past `expires` one recurring `acme_expiry` job.
 *
 * Today's pending work moves over: every `processing` challenge gets its job, due at its
 * `next_attempt` (now when it had none), with its attempts and its live lease kept (the instance
 * validating it right now finishes and settles the job); every `processing` order its job, with its
 * attempts — an order waiting for a retry (the lease owner `retry` that releases 0006's order at
 * `lease_expires`) due then, one leased by a live runner kept leased to it, any other due now.
 *
 * The jobs hold the leases, due times and attempts now: nothing reads or writes the challenges' and
 * orders' lease columns or the challenges' `next_attempt` any more. The columns stay, unused and as
 * they were (as 0033 left the endpoints' lease columns: no migration drops a column, so a database
 * upgraded keeps every value — test/store/upgrade.test.ts); the index on `next_attempt`, which served
 * only ACME's own claim, is dropped. `down` moves the pending jobs back onto the columns (a job's
 * `run_at` as the challenge's `next_attempt` or the waiting order's `retry` lease, a live lease as
 * the row's), makes the index again and deletes ACME's jobs.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    INSERT INTO ca_api_jobs (kind, reference, run_at, attempts, lease_owner, lease_until)
    SELECT 'acme_validation', c.id::text, coalesce(c.next_attempt, clock_timestamp()), c.attempts,
           CASE WHEN c.lease_expires > clock_timestamp() THEN c.lease_owner END,
           CASE WHEN c.lease_expires > clock_timestamp() THEN c.lease_expires END
    FROM ca_api_acme_challenges c
    WHERE c.status = 'processing'
    ORDER BY c.id
    ON CONFLICT (kind, reference) DO NOTHING`);
  await knex.raw(`
    INSERT INTO ca_api_jobs (kind, reference, run_at, attempts, lease_owner, lease_until)
    SELECT 'acme_issuance', o.id::text,
           CASE WHEN o.lease_owner = 'retry' AND o.lease_expires > clock_timestamp() THEN o.lease_expires ELSE clock_timestamp() END,
           o.attempts,
           CASE WHEN o.lease_owner <> 'retry' AND o.lease_expires > clock_timestamp() THEN o.lease_owner END,
           CASE WHEN o.lease_owner <> 'retry' AND o.lease_expires > clock_timestamp() THEN o.lease_expires END
    FROM ca_api_acme_orders o
    WHERE o.status = 'processing'
    ORDER BY o.id
    ON CONFLICT (kind, reference) DO NOTHING`);
  await knex.raw(`INSERT INTO ca_api_jobs (kind, reference) VALUES ('acme_expiry', 'orders') ON CONFLICT (kind, reference) DO NOTHING`);

  await knex.raw('DROP INDEX IF EXISTS ca_api_acme_challenges_processing_idx');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("CREATE INDEX ca_api_acme_challenges_processing_idx ON ca_api_acme_challenges (next_attempt) WHERE status = 'processing'");

  await knex.raw(`
    UPDATE ca_api_acme_challenges c SET next_attempt = j.run_at, attempts = j.attempts,
           lease_owner = CASE WHEN j.lease_until > clock_timestamp() THEN j.lease_owner END,
           lease_expires = CASE WHEN j.lease_until > clock_timestamp() THEN j.lease_until END
    FROM ca_api_jobs j
    WHERE j.kind = 'acme_validation' AND j.reference = c.id::text AND j.state = 'pending' AND c.status = 'processing'`);
  await knex.raw(`UPDATE ca_api_acme_challenges SET next_attempt = clock_timestamp() WHERE status = 'processing' AND next_attempt IS NULL`);
  await knex.raw(`
    UPDATE ca_api_acme_orders o SET attempts = j.attempts,
           lease_owner = CASE WHEN j.lease_until > clock_timestamp() THEN j.lease_owner WHEN j.run_at > clock_timestamp() THEN 'retry' END,
           lease_expires = CASE WHEN j.lease_until > clock_timestamp() THEN j.lease_until WHEN j.run_at > clock_timestamp() THEN j.run_at END
    FROM ca_api_jobs j
    WHERE j.kind = 'acme_issuance' AND j.reference = o.id::text AND j.state = 'pending' AND o.status = 'processing'`);
  await knex.raw(`DELETE FROM ca_api_jobs WHERE kind IN ('acme_validation', 'acme_issuance', 'acme_expiry')`);
}
