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
 *
 * Frozen text: the SQL is written out here in full, not derived from another migration's, so that a
 * change to an older migration never changes what this one does (test/architecture/frozen-migrations.test.ts).
 */
import type { Knex } from 'knex';

const TABLE = 'ca_api_enrolment_endpoints';

/** Migration 0026's event trigger function, naming the two new columns in `.created` and `.updated`. */
const EVENT_FUNCTION = `
    CREATE OR REPLACE FUNCTION ca_api_event_enrolment_endpoint() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      changed text[] := '{}';
    BEGIN
      IF TG_OP = 'DELETE' THEN
        PERFORM ca_api_event('enrolment.endpoint.deleted', ca_api_event_actor(NULL), OLD.ca_id, NULL,
          json_build_object('protocol', OLD.protocol, 'label', OLD.label));
      ELSIF TG_OP = 'INSERT' THEN
        PERFORM ca_api_event('enrolment.endpoint.created', ca_api_event_actor(NULL), NEW.ca_id, NULL,
          json_build_object('protocol', NEW.protocol, 'label', NEW.label, 'profile', NEW.profile,
            'challenge', NEW.challenge_sha256 IS NOT NULL, 'approval', NEW.approval, 'names', NEW.names,
            'validity_days', NEW.validity_days, 'enabled', NEW.enabled,
            'requests_per_minute', NEW.requests_per_minute, 'challenge_webhook', NEW.challenge_webhook));
      ELSE
      IF NEW.ca_id IS DISTINCT FROM OLD.ca_id THEN changed := changed || 'ca'::text; END IF;
      IF NEW.profile IS DISTINCT FROM OLD.profile THEN changed := changed || 'profile'::text; END IF;
      IF NEW.challenge_sha256 IS DISTINCT FROM OLD.challenge_sha256 THEN changed := changed || 'challenge'::text; END IF;
      IF NEW.approval IS DISTINCT FROM OLD.approval THEN changed := changed || 'approval'::text; END IF;
      IF NEW.names::text IS DISTINCT FROM OLD.names::text THEN changed := changed || 'names'::text; END IF;
      IF NEW.validity_days IS DISTINCT FROM OLD.validity_days THEN changed := changed || 'validity_days'::text; END IF;
      IF NEW.enabled IS DISTINCT FROM OLD.enabled THEN changed := changed || 'enabled'::text; END IF;
      IF NEW.requests_per_minute IS DISTINCT FROM OLD.requests_per_minute THEN changed := changed || 'requests_per_minute'::text; END IF;
      IF NEW.challenge_webhook IS DISTINCT FROM OLD.challenge_webhook THEN changed := changed || 'challenge_webhook'::text; END IF;
        IF cardinality(changed) > 0 THEN
          PERFORM ca_api_event('enrolment.endpoint.updated', ca_api_event_actor(NULL), NEW.ca_id, NULL,
            json_build_object('protocol', NEW.protocol, 'label', NEW.label, 'changed', changed));
        END IF;
      END IF;
      RETURN NULL;
    END $$`;

/** The event trigger function as migration 0026 made it, for `down`. */
const EVENT_FUNCTION_0026 = `
    CREATE OR REPLACE FUNCTION ca_api_event_enrolment_endpoint() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      changed text[] := '{}';
    BEGIN
      IF TG_OP = 'DELETE' THEN
        PERFORM ca_api_event('enrolment.endpoint.deleted', ca_api_event_actor(NULL), OLD.ca_id, NULL,
          json_build_object('protocol', OLD.protocol, 'label', OLD.label));
      ELSIF TG_OP = 'INSERT' THEN
        PERFORM ca_api_event('enrolment.endpoint.created', ca_api_event_actor(NULL), NEW.ca_id, NULL,
          json_build_object('protocol', NEW.protocol, 'label', NEW.label, 'profile', NEW.profile,
            'challenge', NEW.challenge_sha256 IS NOT NULL, 'approval', NEW.approval, 'names', NEW.names,
            'validity_days', NEW.validity_days, 'enabled', NEW.enabled));
      ELSE
      IF NEW.ca_id IS DISTINCT FROM OLD.ca_id THEN changed := changed || 'ca'::text; END IF;
      IF NEW.profile IS DISTINCT FROM OLD.profile THEN changed := changed || 'profile'::text; END IF;
      IF NEW.challenge_sha256 IS DISTINCT FROM OLD.challenge_sha256 THEN changed := changed || 'challenge'::text; END IF;
      IF NEW.approval IS DISTINCT FROM OLD.approval THEN changed := changed || 'approval'::text; END IF;
      IF NEW.names::text IS DISTINCT FROM OLD.names::text THEN changed := changed || 'names'::text; END IF;
      IF NEW.validity_days IS DISTINCT FROM OLD.validity_days THEN changed := changed || 'validity_days'::text; END IF;
      IF NEW.enabled IS DISTINCT FROM OLD.enabled THEN changed := changed || 'enabled'::text; END IF;
        IF cardinality(changed) > 0 THEN
          PERFORM ca_api_event('enrolment.endpoint.updated', ca_api_event_actor(NULL), NEW.ca_id, NULL,
            json_build_object('protocol', NEW.protocol, 'label', NEW.label, 'changed', changed));
        END IF;
      END IF;
      RETURN NULL;
    END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable(TABLE, (t) => {
    t.integer('requests_per_minute').nullable();
    t.boolean('challenge_webhook').notNullable().defaultTo(false);
  });
  await knex.raw(
    `ALTER TABLE ${TABLE} ADD CONSTRAINT ${TABLE}_rate_check CHECK (requests_per_minute IS NULL OR requests_per_minute BETWEEN 1 AND 1000000)`,
  );
  await knex.raw(EVENT_FUNCTION);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(EVENT_FUNCTION_0026);
  await knex.raw(`ALTER TABLE ${TABLE} DROP CONSTRAINT IF EXISTS ${TABLE}_rate_check`);
  await knex.schema.alterTable(TABLE, (t) => {
    t.dropColumn('challenge_webhook');
    t.dropColumn('requests_per_minute');
  });
}
