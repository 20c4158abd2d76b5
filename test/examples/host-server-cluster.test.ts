/**
 * The example server on several processes (CA_WORKERS, examples/host-server/cluster.ts): which values
 * are taken, and — where TEST_DATABASE_URL names a PostgreSQL server (CI) — a cluster that serves
 * from every worker, replaces a worker that dies and stops whole on SIGTERM (without PostgreSQL,
 * skipped locally and failed in CI: `describeOnPostgres`).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { workerCount } from '../../examples/host-server/cluster';
import { opensslCsr } from '../api/fixture';
import { childDatabaseUrl } from '../cli/database-url';
import { TEST_KEK } from '../cli/helpers';
import { describeOnPostgres, openTestDatabase, type TestDatabase } from '../helpers/database';
import { startChild, startChildServer, stopChild, type ChildServer } from './child-server';

const PG = 'postgres://ca:ca@127.0.0.1:5432/ca';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'host-cluster-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('workerCount (CA_WORKERS)', () => {
  test.each([
    [{}, 1],
    [{ CA_WORKERS: '1' }, 1],
    [{ CA_WORKERS: 'auto' }, 1],
    [{ CA_WORKERS: 'auto', DATABASE_URL: PG }, os.availableParallelism()],
    [{ CA_WORKERS: '3', DATABASE_URL: PG }, 3],
  ])('%j → %d', (env, count) => {
    expect(workerCount(env as NodeJS.ProcessEnv)).toBe(count);
  });

  test.each([
    [{ CA_WORKERS: '2' }, /several processes need PostgreSQL .*the embedded database serves one process at a time/],
    [{ CA_WORKERS: 'many', DATABASE_URL: PG }, /CA_WORKERS=many: give a number of processes from 1 to 64, or auto/],
    [{ CA_WORKERS: '0', DATABASE_URL: PG }, /from 1 to 64/],
    [{ CA_WORKERS: '65', DATABASE_URL: PG }, /from 1 to 64/],
    [{ CA_WORKERS: '2', DATABASE_URL: PG, CA_METRICS: 'true' }, /metrics are per process/],
  ])('%j is refused', (env, message) => {
    expect(() => workerCount(env as NodeJS.ProcessEnv)).toThrow(message);
  });

  test('npm start with CA_WORKERS=2 on the embedded database ends at once, says why, creates nothing', async () => {
    const data = path.join(dir, 'embedded');
    fs.mkdirSync(data); // the child's working directory
    const started = startChild({ CA_DATA_DIR: data, CA_WORKERS: '2' }, () => false, undefined, undefined, { seedDatabase: false });
    await expect(started).rejects.toThrow(/server exited with 1:\nCA_WORKERS=2: several processes need PostgreSQL/);
    expect(fs.readdirSync(data)).toEqual([]); // no database, no development key
  });
});

/** Process ids whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) found.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

const alive = (pid: number) => fs.existsSync(`/proc/${pid}`);

async function until<T>(what: string, fn: () => T | Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await fn();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describeOnPostgres('CA_WORKERS=2 on PostgreSQL', (target) => {
  let db: TestDatabase;
  let server: ChildServer;
  let csr: string;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    const data = path.join(dir, 'data');
    fs.mkdirSync(data);
    const env = { DATABASE_URL: childDatabaseUrl(target, db), CA_DATA_DIR: data, CA_KEY_ENCRYPTION_KEY: TEST_KEK, CA_WORKERS: '2' };
    server = await startChildServer({ ...env, CA_ENABLE_ACME: 'true' }, 120_000);
    csr = opensslCsr('EC', 'cluster.example.com').csr;
  }, 150_000);

  afterAll(async () => {
    if (server) await stopChild(server.child);
    await db?.close();
  });

  const auth = () => ({ Authorization: `Basic ${Buffer.from(`${server.username}:${server.password}`).toString('base64')}` });

  /** Sign through the cluster on a new connection each time; resolves with the issued order. */
  async function signAndWait(): Promise<{ status: string; serial: string }> {
    const api = `${server.apiRoot}/ca/${server.caSerial}`;
    const headers = { ...auth(), 'Content-Type': 'application/json', Connection: 'close' };
    const body = JSON.stringify({ csr, subject: [{ oid: 'CN', value: 'cluster.example.com' }] });
    const placed = await fetch(`${api}/sign/`, { method: 'POST', headers, body });
    expect(placed.status).toBe(200);
    const { slug } = (await placed.json()) as { slug: string };
    return until(
      `order ${slug}`,
      async () => (await (await fetch(`${api}/orders/${slug}/`, { headers })).json()) as { status: string; serial: string },
      (o) => o.status !== 'pending',
    );
  }

  test('two workers serve; each knows the ACME directory; orders are issued', async () => {
    expect(server.output()).toContain('2 worker processes (CA_WORKERS)');
    expect(childrenOf(server.child.pid!)).toHaveLength(2);
    // The access log names no process; the workers' own answers to `/` (after the primary's broadcast) do agree.
    for (let i = 0; i < 6; i++) {
      const text = await (await fetch(`${new URL(server.apiRoot).origin}/`, { headers: { Connection: 'close' } })).text();
      expect(text).toMatch(/^ACME directory: http:\/\/127\.0\.0\.1:\d+\/django_ca\/acme\/directory\/[0-9A-F]+\/$/m);
    }
    const orders = await Promise.all(Array.from({ length: 6 }, () => signAndWait()));
    expect(orders.map((o) => o.status)).toEqual(Array(6).fill('issued'));
    expect(new Set(orders.map((o) => o.serial)).size).toBe(6);
  }, 60_000);

  test('a worker that dies is replaced, and the cluster goes on serving', async () => {
    const [victim] = childrenOf(server.child.pid!);
    process.kill(victim, 'SIGKILL');
    await until(
      'the primary notices',
      () => server.output().includes(`worker process ${victim} ended (SIGKILL); starting another.`),
      Boolean,
    );
    const workers = await until(
      'two workers again',
      () => childrenOf(server.child.pid!),
      (w) => w.length === 2 && !w.includes(victim),
    );
    expect(workers).not.toContain(victim);
    expect((await signAndWait()).status).toBe('issued');
  }, 60_000);

  test('SIGTERM to the primary stops every worker, then the primary (exit 0)', async () => {
    const workers = childrenOf(server.child.pid!);
    expect(workers).toHaveLength(2);
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(server.output()).toMatch(/\nSIGTERM: stopping \(order runner, database\)…\nstopped\.\n/);
    expect(workers.filter(alive)).toEqual([]);
  }, 60_000);
});
