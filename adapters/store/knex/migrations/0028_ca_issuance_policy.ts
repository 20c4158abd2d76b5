/**
 * Each CA's own issuance policy (docs/guides/issuance-policy.md; `CaRecord.issuancePolicy`,
 * `ca-admin edit_ca --issuance-*`, the admin interface's CA form): a nullable `jsonb` column of the CA
 * table, `{keys, allow, deny}` with canonical entries, or null — the built-in policy alone, which is
 * what every CA of an earlier release keeps. Not part of the REST API's CA JSON (django-ca's shape).
 *
 * And its event (docs/operations/audit-and-events.md "Domain events"): `ca.issuance_policy.updated`, with the CA's name and the
 * policy before and after (`old`, `new`: key kinds and names, nothing secret), naming the actor the
 * write names (`ca_api.actor`), deferred to the commit as every event trigger. The `ca.updated` event
 * of the same write names the column among the fields changed, as it names any other.
 */
import type { Knex } from 'knex';

const TABLE = 'ca_api_certificate_authorities';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable(TABLE, (t) => {
    t.jsonb('issuance_policy').nullable();
  });
  await knex.raw(`
    CREATE FUNCTION ca_api_event_ca_issuance_policy_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('ca.issuance_policy.updated', ca_api_event_actor(NULL), NEW.id, NULL,
        json_build_object('name', NEW.name, 'old', OLD.issuance_policy, 'new', NEW.issuance_policy));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_ca_issuance_policy_updated AFTER UPDATE ON ${TABLE}
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (NEW.issuance_policy IS DISTINCT FROM OLD.issuance_policy)
    EXECUTE FUNCTION ca_api_event_ca_issuance_policy_updated()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TRIGGER IF EXISTS ca_api_event_ca_issuance_policy_updated ON ${TABLE}`);
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_event_ca_issuance_policy_updated()');
  await knex.schema.alterTable(TABLE, (t) => {
    t.dropColumn('issuance_policy');
  });
}
