/**
 * The backup and restore drill of docs/operations/backup-restore.md, on the embedded database and on
 * PostgreSQL: issue and revoke, publish a CRL, back up (while the example server runs), issue, revoke
 * and publish more, restore into a new database, serve from it. The restored server's audit chain
 * verifies, its next CRL is numbered above every CRL published before, a new certificate gets a serial
 * never used, OCSP answers `unknown` for a certificate issued after the backup, and a wrong
 * key-encryption key is one clear error that changes nothing.
 *
 * Every command block of the document runs here as written (bash, `ca-admin` the package's), and
 * every block of the document must be run by this file, but the point-in-time recovery's (`pitr-…`),
 * which test/operations/pitr-drill.test.ts runs: the backup commands operators read are the ones CI
 * runs.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import knex from 'knex';
import { PGlite, type Extension } from '@electric-sql/pglite';
import type { HostServer } from '../../examples/host-server/server';
import { tarEntries } from '../../adapters/store/backup-tar';
import { TEST_KEK } from '../cli/helpers';
import { tmpDir } from '../cli/openssl';
import { describeOnPostgres } from '../helpers/database';
import { migratedPgliteSnapshot } from '../helpers/pglite-snapshot';
import {
  afterTheRestore,
  caAdminBin,
  DOC_FILE,
  docBlocks,
  isPitrBlock,
  issue,
  publishCrl,
  revoke,
  serialsOfExport,
  startServer,
  type Seen,
} from './drill';

jest.setTimeout(600_000);

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension };

const WRONG_KEK = Buffer.alloc(32, 9).toString('base64');

const BLOCKS = docBlocks();
const ran = new Set<string>();
/** The drills that ran to their end. */
const drills = new Set<'pglite' | 'postgresql'>();

afterAll(() => {
  // Both drills together (CI, where TEST_DATABASE_URL is set) run every block of the document but
  // the point-in-time recovery's, which test/operations/pitr-drill.test.ts runs.
  if (drills.size === 2) expect([...ran].sort()).toEqual([...BLOCKS.keys()].filter((name) => !isPitrBlock(name)).sort());
});

interface Shell {
  run(block: string, env?: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function shell(work: string, env: Record<string, string>): Shell {
  const bin = caAdminBin(work);
  return {
    // Asynchronous: the example server that answers `ca-admin backup` runs in this process.
    run(name, extra = {}) {
      const code = BLOCKS.get(name);
      if (code === undefined) throw new Error(`${DOC_FILE} has no block ${name}`);
      ran.add(name);
      const child = spawn('bash', ['-e', '-c', code], {
        cwd: work,
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, CA_KEY_ENCRYPTION_KEY: TEST_KEK, ...env, ...extra },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
      child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
      return new Promise((resolve, reject) => {
        child.on('error', reject);
        child.on('close', (status) => resolve({ code: status, stdout, stderr }));
      });
    },
  };
}

/** A migrated embedded database in `directory`, from the suite's snapshot: initdb costs a minute of CPU on a busy machine. */
async function migratedDirectory(directory: string): Promise<void> {
  fs.mkdirSync(directory, { mode: 0o700 });
  const loadDataDir = new Blob([fs.readFileSync(await migratedPgliteSnapshot())]);
  const pglite = new PGlite({ dataDir: directory, extensions: { pg_trgm }, loadDataDir });
  await pglite.waitReady;
  await pglite.close();
}

/**
 * The drill up to the restore: a server on `databaseUrl`; a certificate revoked and a CRL published;
 * the backup (`backup()`, while the server runs); more issued, revoked and published; the audit log
 * exported as the document says; the server stopped (the database is lost from here on).
 */
async function beforeTheLoss(
  databaseUrl: string,
  work: string,
  backup: (server: HostServer) => Promise<void>,
  exportAuditLog: () => Promise<void>,
): Promise<{ seen: Seen; afterBackup: { issued: string; revoked: string } }> {
  const seen: Seen = { crlNumbers: [], serials: new Set() };
  const server = await startServer(databaseUrl, path.join(work, '.ca-data'));
  let afterBackup: { issued: string; revoked: string };
  try {
    const first = await issue(server, work, 'first', seen);
    const second = await issue(server, work, 'second', seen);
    await revoke(server, first);
    await publishCrl(server, seen);
    await backup(server);
    const third = await issue(server, work, 'third', seen);
    await revoke(server, second);
    // Several CRLs after the backup: a counter restored from the backup would fall behind them.
    for (let i = 0; i < 3; i++) {
      await publishCrl(server, seen);
      await new Promise((resolve) => setTimeout(resolve, 1100)); // past the CRL cache's version check
      await revoke(server, await issue(server, work, `more-${i}`, seen));
    }
    await publishCrl(server, seen);
    afterBackup = { issued: third, revoked: second };
    if (databaseUrl.startsWith('postgres')) await exportAuditLog(); // with PostgreSQL, while the server runs
  } finally {
    await server.close();
  }
  if (!databaseUrl.startsWith('postgres')) await exportAuditLog(); // the embedded database: once it is free
  for (const serial of serialsOfExport(path.join(work, 'ca-audit.jsonl'))) seen.serials.add(serial);
  return { seen, afterBackup };
}

describe('backup drill on the embedded database (PGlite)', () => {
  let work: string;
  beforeAll(() => {
    work = tmpDir('backup-drill-pglite-');
  });
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  test('backup while the server runs, restore, serve: nothing goes backwards', async () => {
    const dataDir = path.join(work, '.ca-data');
    await migratedDirectory(dataDir);
    const sh = shell(work, { DATABASE_URL: dataDir });
    const { seen, afterBackup } = await beforeTheLoss(
      dataDir,
      work,
      async (server) => {
        // Requests that arrive while the server copies the database wait for it: none fails.
        const during = Array.from({ length: 5 }, async (_, i) => {
          await new Promise((resolve) => setTimeout(resolve, i * 500));
          return (await fetch(`${server.url}/django_ca/crl/${server.intermediate.serial}/`)).status; // reads the database every second
        });
        const r = await sh.run('pglite-backup');
        expect(await Promise.all(during)).toEqual([200, 200, 200, 200, 200]);
        expect(r.stderr).toBe('');
        expect(r.stdout).toMatch(
          /^Wrote a backup of the embedded database to .*ca-backup\.tar\.gz \(\d+ bytes\) by the server holding it \(process \d+\)\.\n/,
        );
      },
      async () => expect(await sh.run('audit-export')).toMatchObject({ code: 0, stderr: '' }),
    );
    // The backup holds PostgreSQL's files, never the development key-encryption key beside them.
    const backup = fs.readFileSync(path.join(work, 'ca-backup.tar.gz'));
    const names = tarEntries(zlib.gunzipSync(backup)).map((e) => e.name);
    expect(names).toContain('/PG_VERSION');
    expect(
      names.filter(
        (n) => !/^\/(PG_VERSION|base|global|pg_\w+|postgresql(\.auto)?\.conf|pg_hba\.conf|pg_ident\.conf|postmaster\.opts)(\/|$)/.test(n),
      ),
    ).toEqual([]);
    expect(fs.statSync(path.join(work, 'ca-backup.tar.gz')).mode & 0o077).toBe(0);

    // A wrong key-encryption key: one clear error, and the new directory stays empty.
    const restored = path.join(work, '.ca-data-restored');
    const wrong = await sh.run('pglite-restore', { CA_KEY_ENCRYPTION_KEY: WRONG_KEK });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
    expect(wrong.stderr).toMatch(/^Error: The private key of CA .* does not open: .*key-encryption key/);
    expect(fs.existsSync(restored) ? fs.readdirSync(restored) : []).toEqual([]);

    const r = await sh.run('pglite-restore');
    expect(r.code).toBe(0);
    // One line says what changed; the certificates and revocations to act on follow on stderr.
    expect(r.stdout).toMatch(
      /^Restored ca-backup\.tar\.gz into .*\.ca-data-restored: audit log intact \(\d+ record\(s\), the newest #\d+ of .*\), 2 CA key\(s\) open, [1-9]\d* certificate\(s\) issued and [1-9]\d* revocation\(s\) after the backup missing\.\n$/,
    );
    expect(r.stderr).toMatch(new RegExp(`Certificates issued after the backup[^\\n]*\\n(  .*\\n)*  ${afterBackup.issued} `));
    expect(r.stderr).toMatch(new RegExp(`Revocations after the backup[^\\n]*\\n(  .*\\n)*  ${afterBackup.revoked} `));
    await afterTheRestore(restored, work, seen, { [afterBackup.issued]: 'unknown' });
    drills.add('pglite');
  });

  test('backup refuses to overwrite a file, and restore to write over a database', async () => {
    const sh = shell(work, { DATABASE_URL: path.join(work, '.ca-data') });
    const again = await sh.run('pglite-backup');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^Error: .*ca-backup\.tar\.gz exists: a backup never overwrites a file/);
    const over = await sh.run('pglite-restore');
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(/^Error: .*is not empty: restore into a new directory/);
  });
});

describeOnPostgres('backup drill on PostgreSQL', (target) => {
  const suffix = `${process.pid}_${Date.now()}`;
  const source = `drill_src_${suffix}`;
  const restoredDb = `drill_restored_${suffix}`;
  const urlOf = (database: string) => {
    const url = new URL(target.url);
    url.pathname = `/${database}`;
    return url.toString();
  };
  const admin = () => knex({ client: 'pg', connection: target.url, pool: { min: 0, max: 1 } });
  let work: string;
  beforeAll(async () => {
    work = tmpDir('backup-drill-pg-');
    const db = admin();
    try {
      await db.raw(`CREATE DATABASE ${source}`);
    } finally {
      await db.destroy();
    }
  });
  afterAll(async () => {
    const db = admin();
    try {
      for (const name of [source, restoredDb]) await db.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await db.destroy();
    }
    fs.rmSync(work, { recursive: true, force: true });
  });

  test('pg_dump while the server runs, pg_restore into a new database, verify_restore, serve', async () => {
    const sh = shell(work, { DATABASE_URL: urlOf(source), RESTORED_DB: restoredDb, RESTORED_URL: urlOf(restoredDb) });
    const { seen, afterBackup } = await beforeTheLoss(
      urlOf(source),
      work,
      async () => expect(await sh.run('postgres-backup')).toMatchObject({ code: 0, stderr: '' }),
      async () => expect(await sh.run('audit-export')).toMatchObject({ code: 0, stderr: '' }),
    );
    const restore = await sh.run('postgres-restore');
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);

    // A wrong key-encryption key: one clear error, and the restored database unchanged.
    const count = async () => {
      const db = knex({ client: 'pg', connection: urlOf(restoredDb), pool: { min: 0, max: 1 } });
      try {
        const [row] = (await db('ca_api_events').count('* as n')) as { n: string }[];
        return Number(row.n);
      } finally {
        await db.destroy();
      }
    };
    const before = await count();
    const wrong = await sh.run('postgres-verify', { CA_KEY_ENCRYPTION_KEY: WRONG_KEK });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
    expect(wrong.stderr).toMatch(/^Error: The private key of CA .* does not open: .*key-encryption key/);
    expect(await count()).toBe(before);

    const r = await sh.run('postgres-verify');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`Certificates issued after the backup[^\\n]*\\n(  .*\\n)*  ${afterBackup.issued} `));
    expect(r.stdout).toMatch(new RegExp(`Revocations after the backup[^\\n]*\\n(  .*\\n)*  ${afterBackup.revoked} `));
    expect(await count()).toBe(before);
    await afterTheRestore(urlOf(restoredDb), work, seen, { [afterBackup.issued]: 'unknown' });
    drills.add('postgresql');
  });
});
