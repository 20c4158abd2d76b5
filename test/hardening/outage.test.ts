/**
 * A database that cannot be reached (docs/operations/hostile-clients-and-outages.md "Outages"): every request is answered at once with a JSON
 * `503` and `Retry-After` — API and public revocation endpoints alike — and the outage is logged once,
 * not per request; the order runner backs off instead of hammering the database, and comes back by
 * itself. (The same with a real PostgreSQL server restarted under load: postgres-restart.test.ts.)
 */
import request from 'supertest';
import { knexStore, StoreUnavailableError } from '../../lib';
import { hasJobStore } from '../../lib/ports';
import { inProcessOrderRunner } from '../../lib/ca/order-runner/in-process';
import { WorkLoop, type WorkLoopOptions } from '../../lib/work/loop';
import { BACKOFF_POLICIES, WORK_OUTAGE_MAX_MS } from '../../lib/work/policies';
import { routerOnDeadDatabase, type DeadDatabaseApp } from '../helpers/dead-database';
import { authHeader } from '../helpers/http';

const API = '/django_ca/api';
const S = 'ABCDEF0123';

let dead: DeadDatabaseApp;
beforeAll(() => {
  dead = routerOnDeadDatabase();
});
afterAll(() => dead?.close());

type Client = ReturnType<typeof request>;
const REQUESTS: [string, (r: Client) => request.Test][] = [
  ['GET /ca/', (r) => r.get(`${API}/ca/`)],
  ['GET /ca/{S}/', (r) => r.get(`${API}/ca/${S}/`)],
  ['PUT /ca/{S}/', (r) => r.put(`${API}/ca/${S}/`).send({ website: 'https://example.com' })],
  ['POST sign', (r) => r.post(`${API}/ca/${S}/sign/`).send({ csr: 'x', subject: [] })],
  ['GET order', (r) => r.get(`${API}/ca/${S}/orders/abc/`)],
  ['GET certs', (r) => r.get(`${API}/ca/${S}/certs/`)],
  ['GET cert', (r) => r.get(`${API}/ca/${S}/certs/AB/`)],
  ['POST revoke', (r) => r.post(`${API}/ca/${S}/certs/AB/revoke/`).send({})],
  ['GET CRL', (r) => r.get(`/django_ca/crl/${S}/`)],
  ['GET issuer', (r) => r.get(`/django_ca/issuer/${S}.der`)],
];

test.each(REQUESTS)('%s: 503 JSON with Retry-After, at once', async (_name, send) => {
  const res = await send(request(dead.app)).set(authHeader('alice', 'pw'));
  expect(res.status).toBe(503);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['retry-after']).toBe('2');
  expect(res.body).toEqual({ detail: 'The service is temporarily unavailable (database). Retry later.' });
});

test('the outage is logged once, not once per request (and without the URL password); nothing else writes to the console', () => {
  expect(dead.logged.filter((m) => m.includes('the database is unavailable'))).toHaveLength(1);
  expect(dead.logged.join('\n')).not.toContain('secret');
  // knex's own "Acquire connection error: <stack>" per failed attempt would flood a host's output.
  expect(dead.console).toEqual([]);
});

test('the in-process order runner backs off while the database is unreachable, and logs it once', async () => {
  const failures: unknown[] = [];
  let claims = 0;
  const store = knexStore(dead.db);
  // Orders are claimed through their jobs (JobStore.claim): count the claims.
  if (!hasJobStore(store)) throw new Error('the knex store has jobs');
  const jobs = new Proxy(store.jobs, {
    get(target, prop, receiver) {
      if (prop === 'claim') claims++;
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  const counting = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'jobs') return jobs;
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  const runner = inProcessOrderRunner({
    store: counting,
    keyBackends: {},
    pollIntervalMs: 20,
    batchSize: 1,
    logError: (_m, e) => failures.push(e),
  });
  await runner.start();
  await new Promise((r) => setTimeout(r, 1500));
  await runner.stop();
  // Without back-off: one attempt every 20 ms, ~75. With it: 100, 200, 400, ... ms apart (half that at the least, with jitter), 6 at most.
  expect(claims).toBeGreaterThanOrEqual(2);
  expect(claims).toBeLessThanOrEqual(8);
  expect(failures).toHaveLength(1);
  expect(failures[0]).toBeInstanceOf(StoreUnavailableError);
});

/** The order runner's loop (lib/work/loop.ts) with a 1 s poll interval and the outage policy. */
function outageLoop(round: WorkLoopOptions['round'], logError: WorkLoopOptions['logError'], random?: () => number): WorkLoop {
  return new WorkLoop({ name: 'order runner', round, intervalMs: 1000, outage: BACKOFF_POLICIES.workOutage(1000), logError, random });
}

describe('work loop back-off', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const lost = () => new StoreUnavailableError('connect ECONNREFUSED', { connectionLost: true });

  /** The exponential waits from a 1 s poll interval: doubling, up to the maximum. */
  const FULL = [1000, 2000, 4000, 8000, 16000, WORK_OUTAGE_MAX_MS, WORK_OUTAGE_MAX_MS];

  test('waits twice as long after each failed drain up to the maximum, and polls normally again after a success', async () => {
    const at: number[] = [];
    let failing = true;
    const logs: string[] = [];
    const loop = outageLoop(
      async () => {
        at.push(Date.now());
        if (failing) throw lost();
      },
      (m: string) => logs.push(m),
      () => 0.5, // the jitter waits off a quarter of each
    );
    const start = Date.now();
    loop.start();
    await jest.advanceTimersByTimeAsync(200_000);
    const gaps = at.slice(1).map((t, i) => t - at[i]);
    expect(gaps.slice(0, 7)).toEqual(FULL.map((full) => (3 * full) / 4));
    expect(logs).toHaveLength(1);
    failing = false;
    const before = at.length;
    await jest.advanceTimersByTimeAsync(WORK_OUTAGE_MAX_MS + 3000);
    const after = at.slice(before);
    expect(after.length).toBeGreaterThanOrEqual(3); // one after the last wait, then every second
    expect(after[2] - after[1]).toBe(1000);
    expect(at[0]).toBe(start);
    await loop.stop();
  });

  test('each wait of the back-off is between half and all of the doubled one (equal jitter)', async () => {
    const at: number[] = [];
    const loop = outageLoop(
      async () => {
        at.push(Date.now());
        throw lost();
      },
      () => undefined,
    );
    loop.start();
    await jest.advanceTimersByTimeAsync(200_000);
    await loop.stop();
    const gaps = at.slice(1).map((t, i) => t - at[i]);
    expect(gaps.length).toBeGreaterThanOrEqual(FULL.length);
    gaps.slice(0, FULL.length).forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(FULL[i] / 2);
      expect(gap).toBeLessThanOrEqual(FULL[i]);
    });
  });

  test('a poke (an order was written: the database is back) drains at once, whatever the back-off', async () => {
    let drains = 0;
    const loop = outageLoop(
      async () => {
        drains++;
        if (drains < 6) throw lost();
      },
      () => undefined,
      () => 0.5,
    );
    loop.start();
    await jest.advanceTimersByTimeAsync(750 + 1500 + 3000 + 6000 + 100); // five failed drains; now waiting 12 s
    expect(drains).toBe(5);
    loop.poke();
    await jest.advanceTimersByTimeAsync(10);
    expect(drains).toBe(6);
    await loop.stop();
  });
});
