/**
 * Two `ca-admin` processes signing against one PostgreSQL database at the same time, 200 times each:
 * 400 certificates, 400 distinct serials, every one intact and signed by the CA.
 *
 * PostgreSQL only: an embedded PGlite database belongs to one process, so there is nothing to share
 * (TEST_DATABASE_URL; without it skipped locally, failed in CI: `describeOnPostgres`).
 * Each worker is one process (fixtures/sign-loop.ts) whose every iteration is a complete `runCli`
 * against DATABASE_URL (open, migrate check, sign, store, close).
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseCertificate, verifyCertificateSignature } from '../../lib/x509/certificate';
import { pemToDer } from '../helpers/corpus';
import { describeOnPostgres, openTestDatabase, type TestDatabase } from '../helpers/database';
import { TABLES } from '../../adapters/store/knex/tables';
import { childEnv, collect, startFixture } from './child';
import { childDatabaseUrl } from './database-url';
import { cliRunner } from './helpers';
import { openssl, opensslCsr, opensslVerify, tmpDir } from './openssl';

const WORKERS = ['alpha', 'beta'];
const PER_WORKER = 200;

describeOnPostgres('two processes running sign_cert against one PostgreSQL database', (postgres) => {
  let db: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    db = await openTestDatabase(postgres);
    dir = tmpDir('ca-admin-concurrent-');
  });
  afterAll(async () => {
    await db?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`produce ${WORKERS.length * PER_WORKER} certificates with distinct serials, all signed by the CA`, async () => {
    const cli = cliRunner(db.store);
    const init = await cli([
      'init_ca',
      '--key-type',
      'EC',
      '--no-default-hostname',
      '--elliptic-curve',
      'secp256r1',
      'Concurrent',
      'CN=concurrent.example.com',
    ]);
    expect(init.stderr).toBe('');
    const caPem = (await cli(['view_ca', 'Concurrent', '--output-format', 'pem'])).stdout;
    const caSpki = pemToDer(openssl(['x509', '-noout', '-pubkey'], caPem));
    const csr = opensslCsr(dir, 'worker');

    // Start both workers, wait until both are loaded, then let them go at once.
    const env = childEnv(childDatabaseUrl(postgres, db));
    const workers = WORKERS.map((label) => {
      const out = path.join(dir, `${label}.pem`);
      const child = startFixture('sign-loop.ts', ['Concurrent', csr, String(PER_WORKER), label, out], env);
      const ready = new Promise<void>((resolve, reject) => {
        let seen = '';
        child.stdout.on('data', (chunk: Buffer) => {
          seen += chunk.toString('utf8');
          if (seen.includes('ready\n')) resolve();
        });
        child.on('close', (code) => reject(new Error(`${label} exited (${code}) before it was ready`)));
      });
      return { label, out, child, ready, result: collect(child) };
    });
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.child.stdin.end('go\n');
    const results = await Promise.all(workers.map((w) => w.result));
    for (const [i, r] of results.entries()) {
      expect({ worker: WORKERS[i], code: r.code, stderr: r.stderr }).toEqual({ worker: WORKERS[i], code: 0, stderr: '' });
      expect(r.stdout).toContain(`done ${PER_WORKER}\n`);
    }

    // What the workers printed: 200 certificates each.
    const printed = workers.flatMap((w) => {
      const pems = fs.readFileSync(w.out, 'utf8').match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----\n/g) ?? [];
      expect(pems).toHaveLength(PER_WORKER);
      return pems;
    });

    // What the database holds: exactly those, 400 rows with 400 distinct serials.
    const ca = (await db.store.findCaByName('Concurrent'))!;
    const rows = (await db.knex(TABLES.certificates).where({ ca_id: ca.id }).orderBy('id').select('serial', 'cn', 'der')) as {
      serial: string;
      cn: string;
      der: Buffer;
    }[];
    const total = WORKERS.length * PER_WORKER;
    expect(rows).toHaveLength(total);
    expect(new Set(rows.map((r) => r.serial)).size).toBe(total);
    expect(rows.map((r) => r.serial).sort()).toEqual(printed.map((p) => parseCertificate(p).serial).sort());
    const expectedCns = WORKERS.flatMap((label) => Array.from({ length: PER_WORKER }, (_, i) => `${label}-${i}.example.com`));
    expect(rows.map((r) => r.cn).sort()).toEqual(expectedCns.sort());

    // Every stored row is whole: its DER parses to its own serial and CN, signed by the CA's key.
    for (const row of rows) {
      const cert = parseCertificate(row.der);
      expect(cert.serial).toBe(row.serial);
      expect(cert.subject).toEqual([{ oid: '2.5.4.3', value: row.cn }]);
      expect(verifyCertificateSignature(cert, caSpki)).toBe(true);
    }
    // openssl agrees on a sample of both workers' certificates.
    for (const pem of printed.filter((_, i) => i % 20 === 0)) {
      expect(opensslVerify(dir, caPem, pem)).toContain(': OK');
    }

    // The two workers really ran at the same time: their rows interleave in insertion order.
    const switches = rows.filter((r, i) => i > 0 && r.cn.split('-')[0] !== rows[i - 1].cn.split('-')[0]).length;
    expect(switches).toBeGreaterThan(1);
  }, 600_000);
});
