/**
 * Keys a CA hands work to (docs/DESIGN.md "Enrolment"): today the SCEP registration authority's RSA
 * key, which decrypts SCEP requests and signs their answers (RFC 8894 §2.1.2) so that the CA's own
 * key signs nothing but certificates and CRLs. One row per CA and purpose: the backend that holds the
 * key, the backend's reference to it (for the default backend the key itself, encrypted under the
 * key-encryption key), and the serial of the certificate the CA issued to it.
 *
 * No trigger: making a delegate is recorded by its certificate's `certificate.issued` event.
 */
import type { Knex } from 'knex';

const TABLE = 'ca_api_delegate_keys';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable(TABLE, (t) => {
    t.integer('ca_id').notNullable().references('id').inTable('ca_api_certificate_authorities').onDelete('CASCADE');
    t.string('purpose', 32).notNullable();
    t.string('key_backend_alias', 64).notNullable();
    t.json('key_backend_options').notNullable();
    t.string('certificate_serial', 64).notNullable();
    t.timestamp('created', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.primary(['ca_id', 'purpose']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable(TABLE);
}
