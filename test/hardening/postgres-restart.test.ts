/**
 * A PostgreSQL restart (down for 3 s) under sign load, with two instances of the example host server on the one
 * database (docs/operations/hostile-clients-and-outages.md "Outages"): while the server is down, requests are answered `503` with
 * `Retry-After` — never a 500, never a dropped connection — and afterwards every order that was
 * accepted (a 200) is issued, exactly once, without anyone restarting the instances.
 *
 * The server is the test's own (private-postgres.ts), so restarting it disturbs no other test file.
 * Needs the PostgreSQL server binaries: CI installs them (and there this test must run); elsewhere
 * it is skipped when they are missing.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import knex from 'knex';
import { TABLES } from '../../adapters/store/knex/tables';
import { TEST_KEK } from '../cli/helpers';
import { startChildServer, stopChild, type ChildServer } from '../examples/child-server';
import { postgresBinDir, PrivatePostgres } from './private-postgres';

const available = postgresBinDir() !== null;
if (!available && process.env.CI) throw new Error('CI must have the PostgreSQL server binaries (see .ci/run)');

(available ? describe : describe.skip)('PostgreSQL restarted under sign load, two instances', () => {
  let pg: PrivatePostgres;
  let dir: string;
  const servers: ChildServer[] = [];

  beforeAll(async () => {
    pg = await PrivatePostgres.start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-restart-'));
    const env = { DATABASE_URL: pg.url(), CA_DATA_DIR: path.join(dir, 'data'), CA_KEY_ENCRYPTION_KEY: TEST_KEK };
    fs.mkdirSync(env.CA_DATA_DIR);
    servers.push(await startChildServer(env)); // makes the demo CAs and user
    servers.push(await startChildServer(env)); // finds them
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => stopChild(s.child)));
    pg?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('only 200s and 503s with Retry-After; every accepted order issued exactly once', async () => {
    const [a] = servers;
    const auth = `Basic ${Buffer.from(`${a.username}:${a.password}`).toString('base64')}`;
    execFileSync(
      'openssl',
      [
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        'k.pem',
        '-out',
        'r.pem',
        '-subj',
        '/CN=load',
      ],
      { cwd: dir, stdio: 'pipe' },
    );
    const body = JSON.stringify({
      csr: fs.readFileSync(path.join(dir, 'r.pem'), 'utf8'),
      subject: [{ oid: 'CN', value: 'load.example.com' }],
    });

    const statuses = new Map<number, number>();
    const problems: string[] = [];
    const accepted: { slug: string; server: ChildServer }[] = [];
    let running = true;
    const worker = async (n: number) => {
      for (let i = 0; running; i++) {
        const server = servers[(n + i) % servers.length];
        try {
          const res = await fetch(`${server.apiRoot}/ca/${server.caSerial}/sign/`, {
            method: 'POST',
            headers: { Authorization: auth, 'Content-Type': 'application/json' },
            body,
          });
          const json = (await res.json()) as { slug?: string };
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 200 && json.slug) accepted.push({ slug: json.slug, server });
          else if (res.status === 503) {
            if (!res.headers.get('retry-after')) problems.push('503 without Retry-After');
            await new Promise((r) => setTimeout(r, 100)); // a client that honours Retry-After, in a hurry
          } else problems.push(`${res.status} ${JSON.stringify(json)}`);
        } catch (e) {
          problems.push(`request failed: ${(e as Error).message}`);
        }
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(worker));
    // Load first (the first requests of each instance are slow: password hashes, CA keys, JIT).
    for (let i = 0; i < 300 && accepted.length < 20; i++) await new Promise((r) => setTimeout(r, 100));
    const before = accepted.length;
    await pg.restart(3000); // down for 3 s
    await new Promise((r) => setTimeout(r, 2000));
    running = false;
    await load;

    expect(problems).toEqual([]);
    expect([...statuses.keys()].sort()).toEqual([200, 503]); // the outage was seen, and nothing else
    expect(before).toBeGreaterThan(0);
    expect(accepted.length).toBeGreaterThan(before); // and the instances recovered by themselves

    // Every accepted order is issued (the runners resume on their own), through either instance.
    const pending = new Set(accepted.map((o) => o.slug));
    for (let round = 0; round < 300 && pending.size; round++) {
      for (const { slug, server } of accepted.filter((o) => pending.has(o.slug))) {
        const res = await fetch(`${server.apiRoot}/ca/${server.caSerial}/orders/${slug}/`, { headers: { Authorization: auth } });
        const order = (await res.json()) as { status: string };
        if (res.status === 200 && order.status === 'issued') pending.delete(slug);
        else if (res.status === 200 && order.status === 'failed') throw new Error(`order ${slug} failed: ${JSON.stringify(order)}`);
      }
      if (pending.size) await new Promise((r) => setTimeout(r, 200));
    }
    expect([...pending]).toEqual([]);

    // Exactly once: one certificate per issued order, no certificate twice, none without its order.
    const db = knex({ client: 'pg', connection: pg.url() });
    try {
      const orders = await db(TABLES.orders)
        .whereIn(
          'slug',
          accepted.map((o) => o.slug),
        )
        .select('status', 'certificate_id');
      expect(orders).toHaveLength(accepted.length);
      expect(new Set(orders.map((o: { certificate_id: number }) => o.certificate_id)).size).toBe(accepted.length);
      const [{ issued }] = await db(TABLES.orders).where({ status: 'issued' }).count({ issued: '*' });
      const [{ certs }] = await db(TABLES.certificates)
        .where({ ca_id: db(TABLES.cas).select('id').where({ serial: a.caSerial }), autogenerated: false })
        .count({ certs: '*' });
      expect(Number(certs)).toBe(Number(issued));
    } finally {
      await db.destroy();
    }
  }, 180_000);
});
