/**
 * Two more settings of the enrolment endpoints kept in the database (docs/guides/est.md, docs/guides/scep.md;
 * `ca-admin create_enrolment_endpoint --requests-per-minute N --challenge webhook`), as the options'
 * endpoints have them: `requests_per_minute`, the endpoint's budget of enrolment requests a minute in
 * each process (null: none; lib/enrolment/rate-limit.ts), and `challenge_webhook`, whether challenges
 * that are neither static nor one-time go to the challenge webhook of the router's options for the
 * protocol (`est.challengeWebhook`, `scep.challengeWebhook`). The webhook's URL and secret stay in
 * the options: no secret is kept here.
 *
 * The event trigger of migration 0026 names them too: in `.created`'s data and `.updated`'s `changed`.
 */
import type { Knex } from 'knex';
import { eventFunction, FIELDS } from './0026_enrolment_endpoints';

const TABLE = 'ca_api_enrolment_endpoints';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable(TABLE, (t) => {
    t.integer('requests_per_minute').nullable();
    t.boolean('challenge_webhook').notNullable().defaultTo(false);
  });
  await knex.raw(
    `ALTER TABLE ${TABLE} ADD CONSTRAINT ${TABLE}_rate_check CHECK (requests_per_minute IS NULL OR requests_per_minute BETWEEN 1 AND 1000000)`,
  );
  await knex.raw(
    eventFunction(
      [...FIELDS, ['requests_per_minute', 'requests_per_minute'], ['challenge_webhook', 'challenge_webhook']],
      ",\n            'requests_per_minute', NEW.requests_per_minute, 'challenge_webhook', NEW.challenge_webhook",
    ),
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(eventFunction(FIELDS, ''));
  await knex.raw(`ALTER TABLE ${TABLE} DROP CONSTRAINT IF EXISTS ${TABLE}_rate_check`);
  await knex.schema.alterTable(TABLE, (t) => {
    t.dropColumn('challenge_webhook');
    t.dropColumn('requests_per_minute');
  });
}
