/**
 * Issuance intents (docs/DESIGN.md "Issuing authority"): before the CA signs a certificate, what it
 * is about to sign — the TBSCertificate with its reserved serial, the door and the requester, what
 * the certificate answers — is written and committed here. A signature therefore always has its
 * row, even when the process dies before the certificate is stored; a serial names one
 * to-be-signed certificate only (`tbs` is kept and the serial is unique per CA).
 *
 * An intent is pending until a certificate with its CA and serial is stored — whatever statement
 * stores it (a REST order, an ACME order made valid, an enrolment answer, ca-admin), the trigger
 * below marks the intent in that same statement — or until it is marked failed (a refusal after the
 * intent, or interrupted: `settleInterruptedIntents`). `answers` is unique among intents that have
 * not failed: two requests for the same order race here, before either signs.
 */
import type { Knex } from 'knex';

const TABLE = 'ca_api_issuance_intents';
const CERTS = 'ca_api_certificates';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable(TABLE, (t) => {
    t.bigIncrements('id').primary();
    t.integer('ca_id').notNullable();
    t.string('serial', 64).notNullable();
    t.string('door', 16).notNullable();
    t.json('requester').nullable();
    t.string('answers', 255).nullable();
    t.binary('tbs').notNullable();
    t.timestamp('created', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.integer('certificate_id').nullable();
    t.timestamp('failed', { useTz: true }).nullable();
    t.text('failure').nullable();
    t.unique(['ca_id', 'serial']);
  });
  await knex.raw(`CREATE UNIQUE INDEX ca_api_issuance_intents_answers ON ${TABLE} (answers) WHERE answers IS NOT NULL AND failed IS NULL`);
  await knex.raw(`CREATE INDEX ca_api_issuance_intents_pending ON ${TABLE} (created) WHERE certificate_id IS NULL AND failed IS NULL`);
  // One UPDATE per INSERT statement, not per row: a batch of 500 certificates costs one join.
  await knex.raw(`
    CREATE FUNCTION ca_api_issuance_intents_stored() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE ${TABLE} i SET certificate_id = n.id
        FROM stored n WHERE i.ca_id = n.ca_id AND i.serial = n.serial AND i.certificate_id IS NULL;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER ca_api_issuance_intents_stored AFTER INSERT ON ${CERTS}
    REFERENCING NEW TABLE AS stored FOR EACH STATEMENT EXECUTE FUNCTION ca_api_issuance_intents_stored()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TRIGGER IF EXISTS ca_api_issuance_intents_stored ON ${CERTS}`);
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_issuance_intents_stored()');
  await knex.schema.dropTable(TABLE);
}
