/**
 * Step-up re-authentication of the admin web interface (docs/guides/admin-interface.md): each session
 * keeps when its user last typed the password (`step_up_at`), which the sensitive actions need recent.
 * A session that exists already was made by a sign-in, which counts as a step-up: it gets its `created`.
 */
import type { Knex } from 'knex';

const TABLE = 'ca_api_admin_sessions';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable(TABLE, (t) => {
    t.timestamp('step_up_at', { useTz: true });
  });
  await knex(TABLE).update({ step_up_at: knex.ref('created') });
  await knex.schema.alterTable(TABLE, (t) => {
    t.dropNullable('step_up_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable(TABLE, (t) => {
    t.dropColumn('step_up_at');
  });
}
