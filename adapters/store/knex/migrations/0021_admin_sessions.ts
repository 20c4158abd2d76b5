/**
 * Sessions of the admin web interface (docs/guides/admin-interface.md): the SHA-256 of the cookie's token
 * (never the token), the user (the session goes with a deleted user), the user row's `updated` at
 * sign-in (a password or permission change ends the session), the CSRF token, the client address,
 * and the times the idle and absolute timeouts count from. Not audited: signing in and out is
 * recorded by the interface itself.
 */
import type { Knex } from 'knex';

const TABLE = 'ca_api_admin_sessions';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable(TABLE, (t) => {
    t.string('token_sha256', 64).primary();
    t.integer('user_id').notNullable().references('id').inTable('ca_api_users').onDelete('CASCADE');
    t.timestamp('user_updated', { useTz: true }).notNullable();
    t.string('csrf_token', 64).notNullable();
    t.string('address', 64).notNullable();
    t.timestamp('created', { useTz: true }).notNullable();
    t.timestamp('last_seen', { useTz: true }).notNullable();
    t.index(['user_id']);
    t.index(['last_seen']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable(TABLE);
}
