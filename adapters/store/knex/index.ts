/**
 * The default `Store`: knex over PostgreSQL (`pg`) or embedded PGlite (`knex-pglite`).
 *
 *   const store = knexStore(await openDatabase(process.env.DATABASE_URL));
 *   await store.migrate();
 */
import type { Knex } from 'knex';
import type { Store } from '../../../lib/ports';
import { KnexStore } from './store';

export function knexStore(knex: Knex): Store {
  return new KnexStore(knex, false);
}

export { KnexStore } from './store';
export { MIGRATIONS_TABLE, migrationSource } from './migrations';
