/**
 * The ACME server's objects (RFC 8555 §7.1): accounts, orders, authorizations and challenges, one table
 * each, every object with its own random slug for its URL (docs/guides/acme.md).
 *
 * Choices that differ from the original (docs/guides/acme.md, differences):
 * - An account key is unique per CA, not across CAs: the same key may hold an account at two CAs.
 * - Orders are kept with the certificate they produced, so that the ordering account can revoke it at
 *   any time (RFC 8555 §7.6), not only until a cleanup deletes the order.
 * - Validation and issuance are durable work in these rows: a challenge being validated is
 *   `processing` with the time of its next attempt, an order being issued is `processing`; runners on
 *   any instance claim them with `FOR UPDATE SKIP LOCKED` and a lease (lib/acme/runner), so that a
 *   restart resumes them and nothing stays `processing` for ever.
 * - Every `error` is kept (RFC 8555 §8.2), as a problem document.
 */
import type { Knex } from 'knex';

const CAS = 'ca_api_certificate_authorities';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ca_api_acme_accounts', (t) => {
    t.increments('id').primary();
    t.string('slug', 12).notNullable().unique();
    t.integer('ca_id').notNullable().references('id').inTable(CAS).onDelete('CASCADE');
    t.string('status', 12).notNullable().defaultTo('valid');
    // RFC 7638 thumbprint of the account key, and the public JWK itself (RFC 8555 §7.1.2).
    t.string('thumbprint', 64).notNullable();
    t.json('jwk').notNullable();
    t.json('contact').notNullable();
    t.boolean('terms_of_service_agreed').notNullable().defaultTo(false);
    t.string('eab_kid', 64).nullable();
    t.string('remote_address', 64).nullable();
    t.timestamp('created', { useTz: true }).notNullable();
    t.timestamp('updated', { useTz: true }).notNullable();
    t.unique(['ca_id', 'thumbprint']);
  });

  await knex.schema.createTable('ca_api_acme_orders', (t) => {
    t.increments('id').primary();
    t.string('slug', 12).notNullable().unique();
    t.integer('account_id').notNullable().references('id').inTable('ca_api_acme_accounts').onDelete('CASCADE');
    t.integer('ca_id').notNullable().references('id').inTable(CAS).onDelete('CASCADE');
    t.string('status', 12).notNullable().defaultTo('pending');
    t.timestamp('expires', { useTz: true }).notNullable();
    t.timestamp('not_before', { useTz: true }).nullable();
    t.timestamp('not_after', { useTz: true }).nullable();
    // [{type, value}] as the client sent them (a wildcard keeps its `*.`).
    t.json('identifiers').notNullable();
    // The prepared sign request once finalized (lib/ports SignRequest), until the certificate exists.
    t.jsonb('request').nullable();
    t.integer('certificate_id').nullable().references('id').inTable('ca_api_certificates').onDelete('SET NULL');
    t.json('error').nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('lease_owner', 255).nullable();
    t.timestamp('lease_expires', { useTz: true }).nullable();
    t.timestamp('created', { useTz: true }).notNullable();
    t.timestamp('updated', { useTz: true }).notNullable();
    t.index(['account_id', 'id']);
    t.index(['certificate_id']);
  });
  await knex.raw("CREATE INDEX ca_api_acme_orders_processing_idx ON ca_api_acme_orders (id) WHERE status = 'processing'");
  await knex.raw("CREATE INDEX ca_api_acme_orders_open_idx ON ca_api_acme_orders (expires) WHERE status IN ('pending', 'ready')");

  await knex.schema.createTable('ca_api_acme_authorizations', (t) => {
    t.increments('id').primary();
    t.string('slug', 12).notNullable().unique();
    t.integer('order_id').notNullable().references('id').inTable('ca_api_acme_orders').onDelete('CASCADE');
    t.string('identifier_type', 8).notNullable();
    t.string('identifier_value', 255).notNullable();
    t.boolean('wildcard').notNullable().defaultTo(false);
    t.string('status', 12).notNullable().defaultTo('pending');
    t.timestamp('expires', { useTz: true }).notNullable();
    t.index(['order_id']);
  });

  await knex.schema.createTable('ca_api_acme_challenges', (t) => {
    t.increments('id').primary();
    t.string('slug', 12).notNullable().unique();
    t.integer('authorization_id').notNullable().references('id').inTable('ca_api_acme_authorizations').onDelete('CASCADE');
    t.string('type', 16).notNullable();
    t.string('token', 64).notNullable();
    t.string('status', 12).notNullable().defaultTo('pending');
    t.timestamp('validated', { useTz: true }).nullable();
    t.json('error').nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt', { useTz: true }).nullable();
    t.string('lease_owner', 255).nullable();
    t.timestamp('lease_expires', { useTz: true }).nullable();
    t.index(['authorization_id']);
  });
  await knex.raw("CREATE INDEX ca_api_acme_challenges_processing_idx ON ca_api_acme_challenges (next_attempt) WHERE status = 'processing'");
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['ca_api_acme_challenges', 'ca_api_acme_authorizations', 'ca_api_acme_orders', 'ca_api_acme_accounts']) {
    await knex.schema.dropTableIfExists(table);
  }
}
