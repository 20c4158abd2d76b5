/**
 * Domain events survive a crash whole (docs/DESIGN.md "Domain events"): an example server finishing
 * a backlog of orders in batches is killed (SIGKILL) mid-way, and the outbox still holds exactly one
 * `certificate.issued` per stored certificate — none without its certificate, no certificate without
 * its event. A restarted server finishes the rest without a second event for anything, and a separate
 * process reads the same events in the same order. Runs where TEST_DATABASE_URL names a PostgreSQL
 * server; without it skipped locally, failed in CI (`describeOnPostgres`).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TABLES } from '../../adapters/store/knex/tables';
import { hasEventLog, type DomainEvent } from '../../lib/ports';
import { opensslCsr } from '../api/fixture';
import { childEnv, runFixture } from '../cli/child';
import { childDatabaseUrl } from '../cli/database-url';
import { TEST_KEK } from '../cli/helpers';
import { describeOnPostgres, openTestDatabase, type TestDatabase } from '../helpers/database';
import type { ChildProcess } from 'child_process';
import { startChild, startChildServer, stopChild, type ChildServer } from './child-server';

const ORDERS = 1500;
const IN_FLIGHT = 24;

describeOnPostgres('events across a crash, on PostgreSQL', (target) => {
  let db: TestDatabase;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'events-crash-'));
    env = { DATABASE_URL: childDatabaseUrl(target, db), CA_DATA_DIR: path.join(dir, 'data'), CA_KEY_ENCRYPTION_KEY: TEST_KEK };
    fs.mkdirSync(env.CA_DATA_DIR);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const count = async (table: string, where: Record<string, unknown> = {}) =>
    Number(((await db.knex(table).where(where).count('* as n').first()) as { n: string | number }).n);

  async function allEvents(): Promise<DomainEvent[]> {
    if (!hasEventLog(db.store)) throw new Error('the knex store keeps events');
    const out: DomainEvent[] = [];
    for (let page = await db.store.eventsSince(0, 500); page.length; page = await db.store.eventsSince(out[out.length - 1].id, 500)) {
      out.push(...page);
    }
    return out;
  }

  /** Certificates and their `certificate.issued` events: the same serials, one event each. */
  async function expectOneEventPerCertificate(): Promise<number> {
    const serials = ((await db.knex(TABLES.certificates).select('serial')) as { serial: string }[]).map((r) => r.serial).sort();
    const issued = (await allEvents()).filter((e) => e.type === 'certificate.issued').map((e) => e.serial);
    expect(issued.sort()).toEqual(serials);
    return serials.length;
  }

  async function placeOrders(server: ChildServer): Promise<void> {
    const auth = `Basic ${Buffer.from(`${server.username}:${server.password}`).toString('base64')}`;
    const body = JSON.stringify({ csr: opensslCsr('EC').csr, subject: [{ oid: 'CN', value: 'crash.example.com' }] });
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < ORDERS) {
          next++;
          const res = await fetch(`${server.apiRoot}/ca/${server.caSerial}/sign/`, {
            method: 'POST',
            headers: { Authorization: auth, 'Content-Type': 'application/json' },
            body,
          });
          if (res.status !== 200) throw new Error(`sign: ${res.status} ${await res.text()}`);
        }
      }),
    );
  }

  test('killed mid-batch: one event per certificate, before and after the restart; a second process reads them', async () => {
    // A backlog: orders accepted by a server that leaves them to another process.
    const accepting = await startChildServer({ ...env, CA_ORDER_RUNNER: 'off' });
    try {
      await placeOrders(accepting);
    } finally {
      await stopChild(accepting.child);
    }
    expect(await count(TABLES.orders, { status: 'pending' })).toBe(ORDERS);

    // A server with a runner takes the backlog in batches; killed as soon as the first are stored —
    // watched from the moment it is spawned, since its runner may start before it says it is ready.
    let worker: ChildProcess | null = null;
    const starting = startChild(
      env,
      (out) => out.includes('--- end ---'),
      60_000,
      (child) => (worker = child),
    ).catch(() => null);
    let issuedAtKill = 0;
    try {
      for (let i = 0; i < 6000 && issuedAtKill === 0; i++) {
        issuedAtKill = await count(TABLES.orders, { status: 'issued' });
        if (issuedAtKill === 0) await new Promise((r) => setTimeout(r, 5));
      }
    } finally {
      if (worker) await stopChild(worker, 'SIGKILL');
      await starting;
    }
    const stored = await expectOneEventPerCertificate();
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(ORDERS); // it died with work left
    expect(await count(TABLES.orders, { status: 'issued' })).toBe(stored);

    // A restart finishes the rest; nothing gets a second event.
    const again = await startChildServer(env);
    try {
      for (let i = 0; i < 600 && (await count(TABLES.orders, { status: 'pending' })) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await stopChild(again.child);
    }
    expect(await count(TABLES.orders, { status: 'issued' })).toBe(ORDERS);
    expect(await expectOneEventPerCertificate()).toBe(ORDERS);

    // Another process on the same database reads the same events, in the same order.
    const read = runFixture('read-events.ts', [], childEnv(env.DATABASE_URL));
    expect(read.stderr).toBe('');
    expect(read.code).toBe(0);
    const theirs = read.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as DomainEvent);
    const ours = await allEvents();
    expect(theirs.map((e) => [e.id, e.type, e.serial])).toEqual(ours.map((e) => [e.id, e.type, e.serial]));
    expect(theirs.filter((e) => e.type === 'certificate.issued')).toHaveLength(ORDERS);
  }, 600_000);
});
