/**
 * Enrolment requests that wait for an operator (docs/guides/est.md, docs/guides/scep.md: an endpoint with `approval`).
 * A row is written when a device's request is accepted as pending, with its CSR, who asked (the
 * certificate's requester once approved), the profile and validity the endpoint signs with, and the key that its
 * repetitions share (unique per protocol and label: a repetition finds it, never makes a second one).
 * The operator's decision is written once — `approved` with the serial of the certificate, stored in
 * the same transaction, or `refused` with a reason — with when and by whom.
 *
 * Events (docs/operations/audit-and-events.md "Domain events"): `enrolment.approved` (its serial, the certificate's) and
 * `enrolment.refused` (`data.reason`), written by the database when a request leaves `pending`, in the
 * same transaction, naming the operator who decided (`decided_by`, else the transaction's actor).
 */
import type { Knex } from 'knex';

const TABLE = 'ca_api_enrolment_requests';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable(TABLE, (t) => {
    t.increments('id').primary();
    t.string('protocol', 8).notNullable();
    t.string('label', 64).notNullable();
    t.integer('ca_id').notNullable().references('id').inTable('ca_api_certificate_authorities').onDelete('CASCADE');
    t.string('profile', 128).notNullable();
    // The endpoint's validity in days when the request was kept (null: the profile's), applied on approval.
    t.integer('validity_days').nullable();
    t.binary('csr').notNullable();
    t.json('requester').notNullable();
    // Hex SHA-256 of what makes a repetition the same request (lib/enrolment/approval.ts).
    t.string('request_key', 64).notNullable();
    t.string('status', 8).notNullable().defaultTo('pending');
    t.string('certificate_serial', 64).nullable();
    t.text('reason').nullable();
    t.timestamp('created', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.timestamp('decided', { useTz: true }).nullable();
    t.json('decided_by').nullable();
    t.unique(['protocol', 'label', 'request_key']);
    t.index(['status', 'ca_id']);
  });
  await knex.raw(`ALTER TABLE ${TABLE} ADD CONSTRAINT ${TABLE}_status_check CHECK (status IN ('pending', 'approved', 'refused'))`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_enrolment_decided() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('enrolment.' || NEW.status, coalesce(NEW.decided_by, ca_api_event_actor(NULL)), NEW.ca_id,
        NEW.certificate_serial,
        json_build_object('request', NEW.id, 'protocol', NEW.protocol, 'label', NEW.label, 'reason', NEW.reason));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_enrolment_decided AFTER UPDATE ON ${TABLE}
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (OLD.status = 'pending' AND NEW.status <> 'pending')
    EXECUTE FUNCTION ca_api_event_enrolment_decided()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TRIGGER IF EXISTS ca_api_event_enrolment_decided ON ${TABLE}`);
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_event_enrolment_decided()');
  await knex.schema.dropTable(TABLE);
}
