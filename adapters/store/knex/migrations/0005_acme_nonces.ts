/**
 * ACME nonces (RFC 8555 §6.5) in the database, so that a nonce minted by one instance is accepted,
 * once, by any instance on the same database: `consumeAcmeNonce` deletes the row it accepts, in one
 * statement, so two instances racing for the same nonce cannot both win. Expired rows are removed as
 * new ones are written (adapters/store/knex/acme-nonces.ts); the index on `expires` keeps that cheap.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ca_api_acme_nonces', (t) => {
    t.string('nonce', 64).primary();
    t.timestamp('expires', { useTz: true }).notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('ca_api_acme_nonces');
}
