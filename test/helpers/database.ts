/**
 * Databases for tests: always an in-memory PGlite, plus the PostgreSQL server named by
 * TEST_DATABASE_URL when it is set (CI sets it). Store tests run against every target.
 *
 * PGlite takes seconds and hundreds of MB to start: open one per test file (beforeAll) and
 * `truncate()` between tests. On PostgreSQL each opened database gets its own schema, so that jest
 * workers running files in parallel never see each other's rows; `close()` drops it.
 */
import { randomBytes } from 'crypto';
import knex, { type Knex } from 'knex';
import { openDatabase } from '../../adapters/store/database';
import { knexStore } from '../../adapters/store/knex';
import type { Store } from '../../lib/ports';
import { TABLES } from '../../adapters/store/knex/tables';
import { migratedPgliteSnapshot } from './pglite-snapshot';

export interface DatabaseTarget {
  name: string;
  url: string;
}

export function testDatabaseTargets(): DatabaseTarget[] {
  const targets: DatabaseTarget[] = [{ name: 'pglite', url: 'memory://' }];
  if (process.env.TEST_DATABASE_URL) targets.push({ name: 'postgresql', url: process.env.TEST_DATABASE_URL });
  return targets;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export interface TestDatabase {
  knex: Knex;
  /** A store on `knex`, migrated unless opened with `migrate: false`. */
  store: Store;
  /** Empty every table of the store (ids restart at 1). */
  truncate(): Promise<void>;
  /** Close the connection and, on PostgreSQL, drop the schema. */
  close(): Promise<void>;
}

/** Tables in an order that TRUNCATE ... CASCADE accepts in one statement. */
const TABLES_IN_TRUNCATE_ORDER = [
  TABLES.events,
  TABLES.jobs,
  TABLES.webhookDeadLetters,
  TABLES.webhookEndpoints,
  TABLES.expiryNotices,
  TABLES.acmeNonces,
  TABLES.acmeChallenges,
  TABLES.acmeAuthorizations,
  TABLES.acmeOrders,
  TABLES.acmeAccounts,
  TABLES.certificateWatchers,
  TABLES.watchers,
  TABLES.orders,
  TABLES.permissions,
  TABLES.users,
  TABLES.issuanceIntents,
  TABLES.certificates,
  TABLES.cas,
];

/** `migrate: false` leaves the schema empty (a test that migrates it its own way: the upgrade test). */
export async function openTestDatabase(target: DatabaseTarget, options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  let schema: string | null = null;
  let db: Knex;
  if (isPostgresUrl(target.url)) {
    schema = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
    await withAdmin(target.url, (admin) => admin.raw(`CREATE SCHEMA "${schema}"`));
    db = await openDatabase(target.url, { searchPath: schema });
  } else if (target.url === 'memory://' && options.migrate !== false) {
    // A migrated snapshot instead of initdb and every migration (pglite-snapshot.ts says why).
    db = await openDatabase(target.url, { pgliteSnapshot: await migratedPgliteSnapshot() });
  } else {
    db = await openDatabase(target.url);
  }
  const store = knexStore(db);
  if (options.migrate !== false) await store.migrate();
  return {
    knex: db,
    store,
    truncate: async () => {
      // The audit log refuses TRUNCATE (migration 0011); tests start each case from an empty one.
      await db.transaction(async (trx) => {
        await trx.raw(`ALTER TABLE ${TABLES.events} DISABLE TRIGGER ca_api_audit_no_truncate`);
        await trx.raw(`TRUNCATE ${TABLES_IN_TRUNCATE_ORDER.join(', ')} RESTART IDENTITY CASCADE`);
        await trx.raw(`ALTER TABLE ${TABLES.events} ENABLE TRIGGER ca_api_audit_no_truncate`);
      });
    },
    close: async () => {
      await db.destroy();
      if (schema) await withAdmin(target.url, (admin) => admin.raw(`DROP SCHEMA "${schema}" CASCADE`));
    },
  };
}

/** A second knex on the same PostgreSQL schema (concurrency tests). */
export function openSecondPool(url: string, db: Knex): Knex {
  const searchPath = db.client.config.searchPath as string[] | undefined;
  return knex({ client: 'pg', connection: url, searchPath, pool: { min: 0, max: 4 } });
}

async function withAdmin<T>(url: string, fn: (admin: Knex) => Promise<T>): Promise<T> {
  const admin = knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    return await fn(admin);
  } finally {
    await admin.destroy();
  }
}

/**
 * `describe` on the PostgreSQL of TEST_DATABASE_URL, for tests that need a database several processes
 * share. Without it: in CI (`CI=true`, where .ci/run starts PostgreSQL) a block whose one test fails
 * saying so — a test that CI skips is a test nobody runs (as `describeWith`, test/helpers/binaries.ts);
 * elsewhere the block is skipped, the reason in its title.
 */
export function describeOnPostgres(title: string, fn: (target: DatabaseTarget) => void): void {
  const target = testDatabaseTargets().find((t) => t.name === 'postgresql');
  if (target) return describe(title, () => fn(target));
  const reason = 'TEST_DATABASE_URL is not set';
  if (process.env.CI === 'true') {
    return describe(title, () => {
      test('TEST_DATABASE_URL names a PostgreSQL server', () => {
        throw new Error(`${reason}. CI (CI=true) must run these tests: .ci/run starts PostgreSQL and sets it.`);
      });
    });
  }
  describe.skip(`${title} (skipped: ${reason})`, () => fn({ name: 'postgresql', url: '' }));
}

/** What `work` returns and the SQL statements it sent through `db`'s knex, in order. */
export async function statementsOf<T>(db: Pick<TestDatabase, 'knex'>, work: () => Promise<T>): Promise<{ value: T; statements: string[] }> {
  const statements: string[] = [];
  const onQuery = (q: { sql: string }) => statements.push(q.sql);
  db.knex.on('query', onQuery);
  try {
    return { value: await work(), statements };
  } finally {
    db.knex.off('query', onQuery);
  }
}
