/**
 * `ca-admin migrate` through the CLI's own store (lib/cli/main.ts, which opens the database unmigrated
 * for this command only): on an empty database it applies every migration and says how many; run
 * again, none. On a PGlite directory (the default kind of DATABASE_URL) and, when TEST_DATABASE_URL
 * is set, on a fresh PostgreSQL schema.
 */
import * as fs from 'fs';
import * as path from 'path';
import { randomBytes } from 'crypto';
import knex from 'knex';
import { migrationSource } from '../../adapters/store/knex/migrations';
import { runCaAdmin } from '../../lib/cli/main';
import { testDatabaseTargets } from '../helpers/database';
import { withSearchPath } from './database-url';
import { TEST_KEK } from './helpers';
import { tmpDir } from './openssl';

async function caAdminOn(databaseUrl: string, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCaAdmin(argv, {
    stdout: { write: (c) => (stdout += Buffer.from(c).toString('utf8')) },
    stderr: { write: (c) => (stderr += Buffer.from(c).toString('utf8')) },
    env: { DATABASE_URL: databaseUrl, CA_KEY_ENCRYPTION_KEY: TEST_KEK },
  });
  return { code, stdout, stderr };
}

describe.each(testDatabaseTargets())('migrate on $name', (target) => {
  let url: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    if (target.name === 'pglite') {
      const dir = tmpDir('ca-admin-migrate-');
      url = path.join(dir, 'data');
      cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
    } else {
      const schema = `test_migrate_${process.pid}_${randomBytes(4).toString('hex')}`;
      const admin = knex({ client: 'pg', connection: target.url, pool: { min: 0, max: 1 } });
      await admin.raw(`CREATE SCHEMA "${schema}"`);
      url = withSearchPath(target.url, schema);
      cleanup = async () => {
        await admin.raw(`DROP SCHEMA "${schema}" CASCADE`);
        await admin.destroy();
      };
    }
  });
  afterAll(() => cleanup?.());

  test('migrate: every migration on an empty database, then none; says how many', async () => {
    const all = (await migrationSource.getMigrations([])).length;
    expect(all).toBeGreaterThan(0);
    expect(await caAdminOn(url, ['migrate'])).toEqual({ code: 0, stdout: `Migrations applied (${all} new).\n`, stderr: '' });
    expect(await caAdminOn(url, ['migrate'])).toEqual({ code: 0, stdout: 'Migrations applied (0 new).\n', stderr: '' });
    // The tables are there for the other commands.
    expect(await caAdminOn(url, ['list_cas'])).toEqual({ code: 0, stdout: '', stderr: '' });
  }, 120_000);
});
