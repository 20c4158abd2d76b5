/**
 * How many of an order's authorizations are not yet valid (`authorizations_pending`), kept on the
 * order row itself. Recording a valid authorization decrements it and makes the order `ready` when it
 * reaches zero, in one statement (adapters/store/knex/acme/work.ts): two validations of the same
 * order finishing at once both update the one order row, so PostgreSQL serialises them on that row
 * and the second sees the first's decrement — exactly one of them makes the order `ready`, with no
 * explicit lock and no transaction around several statements (RFC 8555 §7.1.6).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ca_api_acme_orders', (t) => {
    t.integer('authorizations_pending').notNullable().defaultTo(0);
  });
  await knex.raw(`
    UPDATE ca_api_acme_orders o
       SET authorizations_pending = (SELECT count(*) FROM ca_api_acme_authorizations a WHERE a.order_id = o.id AND a.status <> 'valid')
     WHERE o.status = 'pending'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ca_api_acme_orders', (t) => {
    t.dropColumn('authorizations_pending');
  });
}
