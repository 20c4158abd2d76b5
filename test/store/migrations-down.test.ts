/**
 * Every migration's `down` undoes its `up`: rolled back one at a time from the newest (as an operator
 * would step back a release), each leaves the schema as the migrations before it made it, and
 * migrating up again gives each state back. The schema is read from the catalogue: tables and
 * columns, constraints, indexes and triggers as their definitions, functions by name, arguments and
 * definition. A down that restores an earlier trigger function writes it out again (migrations are
 * frozen text, test/architecture/frozen-migrations.test.ts: it cannot take the older migration's),
 * so a slip in that copy shows here as a function that differs from the one the older `up` made.
 */
import type { Knex } from 'knex';
import { MIGRATIONS_TABLE, migrationSource } from '../../adapters/store/knex/migrations';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';

/**
 * Functions whose definition a down restores in another form, equal in effect: compared by name and
 * arguments only while the named migration is not applied. 0009's down writes 0004's certificate
 * trigger with a local variable for the actor, where 0004 called the function in place.
 */
const EQUIVALENT_BELOW: Readonly<Record<string, string>> = { ca_api_event_certificate_stored: '0009_acme_event_actor' };

/**
 * The schema of the current search path, as text that two equal schemas share; `applied`, the
 * migrations it has. Function definitions with their white space collapsed: a restored trigger
 * function may break its lines elsewhere than the original (0011's and 0013's downs do).
 */
async function schemaOf(knex: Knex, applied: readonly string[]): Promise<string> {
  const rows = async (sql: string) => ((await knex.raw(sql)) as { rows: Record<string, unknown>[] }).rows;
  const columns = await rows(`
    SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name <> '${MIGRATIONS_TABLE}' AND table_name <> '${MIGRATIONS_TABLE}_lock'
     ORDER BY table_name, column_name`);
  const indexes = await rows(`
    SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename NOT LIKE '${MIGRATIONS_TABLE}%'
     ORDER BY indexname`);
  const triggers = await rows(`
    SELECT t.tgname, pg_get_triggerdef(t.oid) AS def FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND NOT t.tgisinternal ORDER BY t.tgname`);
  const constraints = await rows(`
    SELECT c.conrelid::regclass::text AS table_name, c.conname, pg_get_constraintdef(c.oid) AS def, c.condeferrable, c.condeferred
      FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
     WHERE n.nspname = current_schema() AND c.conrelid::regclass::text NOT LIKE '${MIGRATIONS_TABLE}%' ORDER BY 1, 2`);
  const functions = (
    await rows(`
    SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args, pg_get_functiondef(p.oid) AS def FROM pg_proc p
      JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = current_schema() AND p.proname LIKE 'ca\\_api\\_%' ORDER BY p.proname, args`)
  ).map((f) => {
    const restoredBy = EQUIVALENT_BELOW[f.proname as string];
    const def = restoredBy && !applied.includes(restoredBy) ? `(equal in effect below ${restoredBy})` : String(f.def).replace(/\s+/g, ' ');
    return { ...f, def };
  });
  return JSON.stringify({ columns, constraints, indexes, triggers, functions }, null, 1);
}

describe.each(testDatabaseTargets())('migrations rolled back one by one on $name', (target) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(target);
  });
  afterAll(async () => {
    await db?.close();
  });

  it("each down leaves the schema of the migrations before it; migrating again gives a fresh database's", async () => {
    const config = { migrationSource, tableName: MIGRATIONS_TABLE };
    const names = (await migrationSource.getMigrations([])) as string[];
    // states[k]: the schema with the first k + 1 migrations applied, going down from all of them.
    const states: string[] = [];
    const through = (k: number) => names.slice(0, k + 1);
    states[names.length - 1] = await schemaOf(db.knex, names);
    for (let k = names.length - 2; k >= 0; k--) {
      await db.knex.migrate.down(config);
      states[k] = await schemaOf(db.knex, through(k));
    }
    // Up again one at a time: each migration gives the schema its down went back from.
    for (let k = 1; k < names.length; k++) {
      await db.knex.migrate.up(config);
      expect({ through: names[k], schema: await schemaOf(db.knex, through(k)) }).toEqual({ through: names[k], schema: states[k] });
    }
  });
});
