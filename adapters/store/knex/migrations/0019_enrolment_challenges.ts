/**
 * One-time enrolment challenges (docs/guides/scep.md): a secret an operator makes for one device
 * (`ca-admin create_enrolment_challenge`), printed once and kept here only as its SHA-256 — the secret
 * is 160 random bits, so a fast hash is as good as a slow one — with the endpoint it is for, the
 * subject and subjectAltNames it is bound to (if any), when it expires, and, once used, when and for
 * which certificate: it is used in the transaction that stores that certificate, so twice never.
 */
import type { Knex } from 'knex';

const TABLE = 'ca_api_enrolment_challenges';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable(TABLE, (t) => {
    t.increments('id').primary();
    t.string('protocol', 8).notNullable();
    t.string('label', 64).notNullable().defaultTo('');
    t.string('secret_sha256', 64).notNullable().unique();
    // The bound subject (API JSON of a Name) and subjectAltNames (API JSON of general names), or null.
    t.json('subject').nullable();
    t.json('san').nullable();
    t.timestamp('created', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.timestamp('expires', { useTz: true }).notNullable();
    t.timestamp('used', { useTz: true }).nullable();
    t.string('certificate_serial', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable(TABLE);
}
