/**
 * ACME nonces that need no database write to mint (adapters/store/knex/acme-nonces.ts): each carries
 * its expiry and a MAC under this database's nonce key, one row made by the first instance that needs
 * it. `ca_api_acme_nonces` now holds the nonces used (until they expire), so that each is accepted
 * once across the instances; the nonces minted before this migration are refused once (their clients
 * ask for a new one, as RFC 8555 §6.5 has them do after `badNonce`).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ca_api_acme_nonce_key', (t) => {
    t.smallint('id').primary();
    t.binary('key').notNullable();
  });
  await knex('ca_api_acme_nonces').delete();
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('ca_api_acme_nonce_key');
  await knex('ca_api_acme_nonces').delete();
}
