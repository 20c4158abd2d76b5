/**
 * ca-admin as a real process on an embedded PGlite directory and, when TEST_DATABASE_URL is set, on
 * PostgreSQL: exit codes, stderr, persistence across processes.
 */
import * as fs from 'fs';
import * as path from 'path';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { caAdmin } from './child';
import { childDatabaseUrl } from './database-url';
import { tmpDir } from './openssl';

describe.each(testDatabaseTargets())('ca-admin processes on $name', (target) => {
  let dir: string;
  let db: TestDatabase | null = null;
  let url: string;
  beforeAll(async () => {
    dir = tmpDir();
    if (target.name === 'pglite') {
      // In-memory PGlite dies with its process: children share a data directory instead.
      url = path.join(dir, 'data');
    } else {
      db = await openTestDatabase(target);
      url = childDatabaseUrl(target, db);
    }
  });
  afterAll(async () => {
    await db?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a second process sees the first one's writes; errors are one line with a non-zero exit", () => {
    const init = caAdmin(url, ['init_ca', '--key-type', 'Ed25519', '--no-default-hostname', 'Proc', 'CN=proc.example.com']);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(init.stdout).toMatch(/^([0-9A-F]{2}:)+[0-9A-F]{2}\n$/);

    const list = caAdmin(url, ['list_cas']);
    expect(list.code).toBe(0);
    expect(list.stdout).toBe(`${init.stdout.trim()} - Proc\n`);

    const bad = caAdmin(url, ['init_ca', '--key-type', 'RSA', '--key-size', '1024', 'Weak', 'CN=weak.example.com']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('Error: 1024: Key size must be at least 2048 bits.\n');
  });
});
