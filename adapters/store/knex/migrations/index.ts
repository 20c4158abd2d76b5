/**
 * The store's migrations as a knex `MigrationSource`.
 *
 * Migrations are imported modules, not files found by globbing a directory: the same list then runs
 * from compiled JavaScript (dist/), from ts-jest and from ts-node, without caring whether the files on
 * disk end in .ts or .js.
 */
import type { Knex } from 'knex';
import * as m0001 from './0001_initial';
import * as m0002 from './0002_revocation';
import * as m0003 from './0003_inventory';
import * as m0004 from './0004_events';
import * as m0005 from './0005_acme_nonces';
import * as m0006 from './0006_acme';
import * as m0007 from './0007_acme_policy';
import * as m0008 from './0008_acme_pending_count';
import * as m0009 from './0009_acme_event_actor';
import * as m0010 from './0010_acme_stateless_nonces';
import * as m0011 from './0011_audit_chain';
import * as m0012 from './0012_webhooks';
import * as m0013 from './0013_kek_rotation_reseal';
import * as m0014 from './0014_acme_source_address';
import * as m0015 from './0015_san_search_given';

/** Name → migration, in the order they apply. Never rename or reorder a shipped entry. */
const MIGRATIONS: ReadonlyArray<readonly [string, Knex.Migration]> = [
  ['0001_initial', m0001],
  ['0002_revocation', m0002],
  ['0003_inventory', m0003],
  ['0004_events', m0004],
  ['0005_acme_nonces', m0005],
  ['0006_acme', m0006],
  ['0007_acme_policy', m0007],
  ['0008_acme_pending_count', m0008],
  ['0009_acme_event_actor', m0009],
  ['0010_acme_stateless_nonces', m0010],
  ['0011_audit_chain', m0011],
  ['0012_webhooks', m0012],
  ['0013_kek_rotation_reseal', m0013],
  ['0014_acme_source_address', m0014],
  ['0015_san_search_given', m0015],
];

/** Table in which knex records applied migrations; prefixed so it cannot clash with a host's own. */
export const MIGRATIONS_TABLE = 'ca_api_knex_migrations';

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => MIGRATIONS.map(([name]) => name),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const found = MIGRATIONS.find(([n]) => n === name);
    if (!found) throw new Error(`Unknown migration: ${name}`);
    return found[1];
  },
};
