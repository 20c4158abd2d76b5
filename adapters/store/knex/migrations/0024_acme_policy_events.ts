/**
 * `acme.policy.updated` and `acme.eab_key.created` (docs/operations/audit-and-events.md "Domain events"): written by the database
 * when a CA's ACME policy changes (`ca-admin edit_ca --acme-*`, the admin interface's CA form) or an
 * external account binding key is made (`ca-admin create_acme_eab_key`, the admin interface), in the
 * same transaction, naming the actor the write names (`ca_api.actor`), else the database role.
 * Deferred to the commit, as every event trigger (ids in commit order). The policy's data is the
 * policy as it now is (`eab_required`, `allow`, `deny`: names, nothing secret); the key's is its
 * `kid` only — never the sealed MAC key.
 *
 * And an index of the records by certificate serial: a certificate's history (the admin interface's
 * certificate page, `AuditFilter.serial`) reads its few records without scanning the whole log.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX ca_api_events_serial_idx ON ca_api_events (serial) WHERE serial IS NOT NULL');
  await knex.raw(`
    CREATE FUNCTION ca_api_event_acme_policy_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('acme.policy.updated', ca_api_event_actor(NULL), NEW.ca_id, NULL,
        json_build_object('eab_required', NEW.eab_required, 'allow', NEW.allow, 'deny', NEW.deny));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_acme_policy_inserted AFTER INSERT ON ca_api_acme_policies
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ca_api_event_acme_policy_updated()`);
  // Every save stamps `updated`: only a change of the policy itself is an event.
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_acme_policy_updated AFTER UPDATE ON ca_api_acme_policies
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (NEW.eab_required IS DISTINCT FROM OLD.eab_required OR NEW.allow::text IS DISTINCT FROM OLD.allow::text
      OR NEW.deny::text IS DISTINCT FROM OLD.deny::text)
    EXECUTE FUNCTION ca_api_event_acme_policy_updated()`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_acme_eab_key_created() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('acme.eab_key.created', ca_api_event_actor(NULL), NEW.ca_id, NULL, json_build_object('kid', NEW.kid));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_acme_eab_key_created AFTER INSERT ON ca_api_acme_eab_keys
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ca_api_event_acme_eab_key_created()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS ca_api_event_acme_eab_key_created ON ca_api_acme_eab_keys');
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_event_acme_eab_key_created()');
  await knex.raw('DROP TRIGGER IF EXISTS ca_api_event_acme_policy_updated ON ca_api_acme_policies');
  await knex.raw('DROP TRIGGER IF EXISTS ca_api_event_acme_policy_inserted ON ca_api_acme_policies');
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_event_acme_policy_updated()');
  await knex.raw('DROP INDEX IF EXISTS ca_api_events_serial_idx');
}
