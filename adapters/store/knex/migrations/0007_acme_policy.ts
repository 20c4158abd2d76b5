/**
 * What a CA allows through ACME (docs/guides/acme.md): whether accounts need an external account binding,
 * and the names it issues for (allow and deny lists), one row per CA that has any; and the external
 * account binding keys, their MAC key sealed under the key-encryption key, each binding one account.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ca_api_acme_policies', (t) => {
    t.integer('ca_id').primary().references('id').inTable('ca_api_certificate_authorities').onDelete('CASCADE');
    t.boolean('eab_required').notNullable().defaultTo(false);
    t.json('allow').notNullable();
    t.json('deny').notNullable();
    t.timestamp('updated', { useTz: true }).notNullable();
  });
  await knex.schema.createTable('ca_api_acme_eab_keys', (t) => {
    t.string('kid', 64).primary();
    t.integer('ca_id').notNullable().references('id').inTable('ca_api_certificate_authorities').onDelete('CASCADE');
    t.json('sealed').notNullable();
    t.integer('account_id').nullable().unique().references('id').inTable('ca_api_acme_accounts').onDelete('SET NULL');
    t.timestamp('created', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('ca_api_acme_eab_keys');
  await knex.schema.dropTableIfExists('ca_api_acme_policies');
}
