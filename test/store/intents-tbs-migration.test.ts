/**
 * Migration 0036: an issued intent lets go of its TBSCertificate (its certificate holds it); pending
 * and failed intents keep theirs. Its `down` makes `tbs` required again, an empty value standing in
 * for the bytes let go.
 */
import type { Knex } from 'knex';
import { MIGRATIONS_TABLE, migrationSource } from '../../adapters/store/knex/migrations';
import { TABLES } from '../../adapters/store/knex/tables';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';

const config = { migrationSource, tableName: MIGRATIONS_TABLE };
const MIGRATION = '0036_issued_intents_without_tbs';

async function applied(knex: Knex): Promise<string[]> {
  const [done] = (await knex.migrate.list(config)) as [{ name: string }[] | string[], unknown];
  return done.map((m) => (typeof m === 'string' ? m : m.name));
}

describe.each(testDatabaseTargets())('migration 0036 lets issued intents go of their TBS, on $name', (target) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(target, { migrate: false });
  });
  afterAll(async () => {
    await db?.close();
  });

  it('clears the TBS of issued intents only, and back again', async () => {
    const { knex } = db;
    const names = (await migrationSource.getMigrations([])).map((m) => migrationSource.getMigrationName(m));
    const before = names[names.indexOf(MIGRATION) - 1];
    while (!(await applied(knex)).includes(before)) await knex.migrate.up(config);
    const tbs = Buffer.from([0x30, 0x03, 0x02, 0x01, 0x05]);
    const intent = (serial: string, row: Record<string, unknown>) => ({ ca_id: 1, serial, door: 'rest', tbs, ...row });
    await knex(TABLES.issuanceIntents).insert([
      intent('A1', { certificate_id: 7 }),
      intent('A2', {}),
      intent('A3', { failed: new Date(), failure: 'refused' }),
    ]);
    const tbsOf = async () =>
      Object.fromEntries(
        (
          (await knex(TABLES.issuanceIntents).select('serial', 'tbs').orderBy('serial')) as { serial: string; tbs: Uint8Array | null }[]
        ).map((r) => [r.serial, r.tbs === null ? null : Buffer.from(r.tbs).toString('hex')]),
      );

    await knex.migrate.up(config);
    expect((await applied(knex)).at(-1)).toBe(MIGRATION);
    expect(await tbsOf()).toEqual({ A1: null, A2: tbs.toString('hex'), A3: tbs.toString('hex') });

    await knex.migrate.down(config);
    expect(await tbsOf()).toEqual({ A1: '', A2: tbs.toString('hex'), A3: tbs.toString('hex') });
    await expect(knex(TABLES.issuanceIntents).insert(intent('A4', { tbs: null }))).rejects.toThrow(/null value|not-null/i);
  });
});
