/**
 * The answers of device enrolments by transaction (docs/guides/scep.md): a request repeated with the same
 * transactionID and key — a client that lost the answer, micromdm's scepclient re-sending its PKCSReq
 * — gets the certificate it got before, not a second one. Written in the transaction that stores the
 * certificate; the primary key makes a race between two repetitions issue once.
 */
import type { Knex } from 'knex';

const TABLE = 'ca_api_enrolment_transactions';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable(TABLE, (t) => {
    t.string('protocol', 8).notNullable();
    t.string('label', 64).notNullable();
    t.string('transaction_id', 128).notNullable();
    t.string('public_key_sha256', 64).notNullable();
    t.integer('ca_id').notNullable().references('id').inTable('ca_api_certificate_authorities').onDelete('CASCADE');
    t.string('certificate_serial', 64).notNullable();
    t.timestamp('created', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.primary(['protocol', 'label', 'transaction_id', 'public_key_sha256']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable(TABLE);
}
