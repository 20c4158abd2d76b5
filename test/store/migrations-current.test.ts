/**
 * `store.migrate()` on a database that has every migration (what each `ca-admin` command and each
 * server start does) reads the applied migrations and stops there, without knex's migrator (its lock
 * table, a transaction, catalogue queries); a database a migration short, or one with a migration this
 * code does not know, still goes to the migrator, which applies the missing one or refuses as before.
 */
import { MIGRATIONS_TABLE, migrationSource } from '../../adapters/store/knex/migrations';
import { openTestDatabase, statementsOf, testDatabaseTargets, type TestDatabase } from '../helpers/database';

const config = { migrationSource, tableName: MIGRATIONS_TABLE };

describe.each(testDatabaseTargets())('migrate() on $name', (target) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await openTestDatabase(target);
  });
  afterEach(async () => {
    await db?.close();
  });

  it('an up-to-date database: two reads, not the migrator and its lock', async () => {
    const { value, statements } = await statementsOf(db, () => db.store.migrate());
    expect(value).toBe(0);
    expect(statements).toHaveLength(2);
    expect(statements.filter((sql) => sql.includes(`${MIGRATIONS_TABLE}_lock`))).toEqual([]);
  });

  it('a migration short: the migrator applies it (under its lock)', async () => {
    await db.knex.migrate.down(config);
    const { value, statements } = await statementsOf(db, () => db.store.migrate());
    expect(value).toBe(1);
    expect(statements.some((sql) => sql.includes(`${MIGRATIONS_TABLE}_lock`))).toBe(true);
    expect(await db.store.migrate()).toBe(0);
  });

  it('a migration this code does not know (a newer release ran): the migrator refuses, as before', async () => {
    await db.knex(MIGRATIONS_TABLE).insert({ name: '9999_from_a_newer_release', batch: 99, migration_time: new Date() });
    await expect(db.store.migrate()).rejects.toThrow(/9999_from_a_newer_release/);
  });
});
