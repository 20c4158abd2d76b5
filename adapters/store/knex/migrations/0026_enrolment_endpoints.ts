/**
 * Enrolment endpoints kept in the database (docs/guides/est.md, docs/guides/scep.md; `ca-admin create_enrolment_endpoint`):
 * one row per (protocol, label), beside the endpoints of the code's options, which win for their label
 * (lib/enrolment/endpoint.ts). The label is never '' (the URLs without a label stay with the options);
 * the static challenge is kept only as its SHA-256 — the secret is shown once when it is set; the name
 * policy is JSON `{allow, deny, subjectAttributes}` or null (any name).
 *
 * And their events (docs/operations/audit-and-events.md "Domain events"): `enrolment.endpoint.created`, `.updated` (`data.changed`
 * names the fields, never their values) and `.deleted`, naming the actor the write names
 * (`ca_api.actor`: the operator of ca-admin), deferred to the commit as every event trigger. The data
 * says whether there is a static challenge, never its hash.
 */
import type { Knex } from 'knex';

const TABLE = 'ca_api_enrolment_endpoints';

/** Column → the field name `data.changed` uses for it. */
const FIELDS: readonly [string, string][] = [
  ['ca_id', 'ca'],
  ['profile', 'profile'],
  ['challenge_sha256', 'challenge'],
  ['approval', 'approval'],
  ['names', 'names'],
  ['validity_days', 'validity_days'],
  ['enabled', 'enabled'],
];

/** The trigger function: `fields` are compared for `.updated`; `created` adds `json_build_object` arguments to `.created`'s data. */
function eventFunction(fields: readonly [string, string][], created: string): string {
  const changed = fields
    .map(([column, field]) => {
      const cast = column === 'names' ? '::text' : '';
      return `IF NEW.${column}${cast} IS DISTINCT FROM OLD.${column}${cast} THEN changed := changed || '${field}'::text; END IF;`;
    })
    .join('\n      ');
  return `
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
            'validity_days', NEW.validity_days, 'enabled', NEW.enabled${created}));
      ELSE
      ${changed}
        IF cardinality(changed) > 0 THEN
          PERFORM ca_api_event('enrolment.endpoint.updated', ca_api_event_actor(NULL), NEW.ca_id, NULL,
            json_build_object('protocol', NEW.protocol, 'label', NEW.label, 'changed', changed));
        END IF;
      END IF;
      RETURN NULL;
    END $$`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable(TABLE, (t) => {
    t.increments('id').primary();
    t.string('protocol', 8).notNullable();
    t.string('label', 64).notNullable();
    t.integer('ca_id').notNullable().references('id').inTable('ca_api_certificate_authorities');
    t.string('profile', 64).nullable();
    t.string('challenge_sha256', 64).nullable();
    t.boolean('approval').notNullable().defaultTo(false);
    t.json('names').nullable();
    t.integer('validity_days').nullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.timestamp('created', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.timestamp('updated', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    // The request path's one lookup: by protocol and label.
    t.unique(['protocol', 'label']);
    t.index(['ca_id']);
  });
  await knex.raw(`ALTER TABLE ${TABLE} ADD CONSTRAINT ${TABLE}_protocol_check CHECK (protocol IN ('EST', 'SCEP'))`);
  await knex.raw(`ALTER TABLE ${TABLE} ADD CONSTRAINT ${TABLE}_label_check CHECK (label <> '')`);
  await knex.raw(`ALTER TABLE ${TABLE} ADD CONSTRAINT ${TABLE}_validity_check CHECK (validity_days IS NULL OR validity_days > 0)`);
  await knex.raw(eventFunction(FIELDS, ''));
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_enrolment_endpoint AFTER INSERT OR UPDATE OR DELETE ON ${TABLE}
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ca_api_event_enrolment_endpoint()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TRIGGER IF EXISTS ca_api_event_enrolment_endpoint ON ${TABLE}`);
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_event_enrolment_endpoint()');
  await knex.schema.dropTableIfExists(TABLE);
}
