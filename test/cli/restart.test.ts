/**
 * Everything the commands wrote is still there for a new process: CAs with their (encrypted) keys,
 * issued and revoked certificates, API users. One session writes in-process and ends (the database
 * closed, as at process exit); a fresh process then reads it all back and signs with the stored key.
 * On an embedded PGlite directory and, when TEST_DATABASE_URL is set, on PostgreSQL.
 */
import * as fs from 'fs';
import * as path from 'path';
import { openDatabase } from '../../adapters/store/database';
import { knexStore } from '../../adapters/store/knex';
import type { Store } from '../../lib/ports';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { childEnv, runFixture } from './child';
import { childDatabaseUrl } from './database-url';
import { cliRunner } from './helpers';
import { openssl, opensslCsr, opensslVerify, tmpDir } from './openssl';

const serialOf = (pem: string) => openssl(['x509', '-noout', '-serial'], pem).trim().split('=')[1];
const colons = (hex: string) => hex.match(/../g)!.join(':');

describe.each(testDatabaseTargets())('a restarted process on $name', (target) => {
  let dir: string;
  let testDb: TestDatabase | null = null;
  let url: string;
  beforeAll(async () => {
    dir = tmpDir('ca-admin-restart-');
    if (target.name === 'pglite') url = path.join(dir, 'data');
    else {
      testDb = await openTestDatabase(target);
      url = childDatabaseUrl(target, testDb);
    }
  });
  afterAll(async () => {
    await testDb?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sees the CAs, certificates, revocations and users of the last one, and signs with the stored key', async () => {
    // First session: a store on the same location the child will open, closed at the end.
    let store: Store;
    if (testDb) store = testDb.store;
    else {
      store = knexStore(await openDatabase(url));
      await store.migrate();
    }
    const cli = cliRunner(store);
    const csr = opensslCsr(dir, 'leaf');
    const init = await cli(['init_ca', '--key-type', 'EC', '--elliptic-curve', 'secp256r1', 'Restart', 'CN=restart.example.com']);
    expect(init.stderr).toBe('');
    const caPem = (await cli(['view_ca', 'Restart', '--output-format', 'pem'])).stdout;
    const kept = (await cli(['sign_cert', '--ca', 'Restart', '--csr', csr, '--subject', 'CN=kept.example.com'])).stdout;
    const gone = (await cli(['sign_cert', '--ca', 'Restart', '--csr', csr, '--subject', 'CN=gone.example.com'])).stdout;
    expect((await cli(['revoke_cert', 'gone.example.com', '--reason', 'keyCompromise'])).stderr).toBe('');
    expect((await cli(['create_api_user', 'restart-user', '--all-permissions', '--password', 'pw'])).stderr).toBe('');
    if (!testDb) await store.close();

    // Second session: a new process.
    const commands = [
      ['list_cas'],
      ['view_cert', 'kept.example.com', '--output-format', 'pem'],
      ['list_certs', '--revoked'],
      ['sign_cert', '--ca', 'Restart', '--csr', csr, '--subject', 'CN=after.example.com'],
      ['create_api_user', 'restart-user', '--all-permissions', '--password', 'other'],
    ];
    const child = runFixture('run-commands.ts', [JSON.stringify(commands)], childEnv(url));
    expect(child.stderr).toBe('');
    expect(child.code).toBe(0);
    const [cas, view, revoked, signed, user] = JSON.parse(child.stdout) as { code: number; stdout: string; stderr: string }[];

    expect(cas).toEqual({ code: 0, stdout: `${init.stdout.trim()} - Restart\n`, stderr: '' });
    expect(view).toEqual({ code: 0, stdout: kept, stderr: '' });
    expect(revoked.stdout).toContain(`${colons(serialOf(gone))} - gone.example.com (revoked)\n`);
    expect(revoked.stdout).toContain(`${colons(serialOf(kept))} - kept.example.com (expires: `);
    // The CA key came back out of the database, decrypted with the same KEK.
    expect(signed.stderr).toBe('');
    expect(opensslVerify(dir, caPem, signed.stdout)).toContain(': OK');
    expect(openssl(['x509', '-noout', '-subject'], signed.stdout)).toContain('CN = after.example.com');
    expect(user).toEqual({ code: 1, stdout: '', stderr: 'Error: restart-user: User already exists.\n' });
  });
});
