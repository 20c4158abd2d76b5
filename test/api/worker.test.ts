/**
 * The in-process order runner (lib/ca/order-runner/in-process.ts): orders left pending (no runner, or a
 * crashed process) are resumed when a runner starts (D3); concurrent runners issue each order once;
 * the router starts a runner by itself when the host gives none. Plus the bigint-safe JSON output.
 */
import request from 'supertest';
import { TABLES } from '../../adapters/store/knex/tables';
import { inProcessOrderRunner } from '../../lib/ca/order-runner/in-process';
import { parseJsonExact, serializeJson } from '../../lib/api/json';
import type { OrderRunner } from '../../lib/ports';
import { buildApp } from '../helpers/http';
import { API, opensslCsr, setupApi, waitForOrder, type ApiFixture } from './fixture';

const holding: OrderRunner = { start: async () => undefined, stop: async () => undefined, notify: () => undefined };

let f: ApiFixture;
let csr: string;
beforeAll(async () => {
  f = await setupApi(undefined, { orderRunner: holding });
  csr = opensslCsr('EC').csr;
});
afterAll(() => f.close());

async function placeOrders(n: number): Promise<string[]> {
  const slugs: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await request(f.app)
      .post(`${API}/ca/${f.ca.serial}/sign/`)
      .set(f.auth('alice'))
      .send({ csr, subject: [{ oid: 'CN', value: `w${i}.example.com` }] });
    expect(res.status).toBe(200);
    slugs.push(res.body.slug);
  }
  return slugs;
}

const status = async (slug: string) => (await f.store.getOrder(slug))?.status;

test('pending orders wait for a runner and are resumed when one starts', async () => {
  const slugs = await placeOrders(3);
  await new Promise((r) => setTimeout(r, 100));
  for (const slug of slugs) expect(await status(slug)).toBe('pending');

  const runner = inProcessOrderRunner({ store: f.store, keyBackends: { default: f.keyBackend }, pollIntervalMs: 20 });
  await runner.start();
  try {
    for (const slug of slugs) {
      const order = await waitForOrder(f.app, f.ca.serial, slug, f.auth('alice'));
      expect(order.status).toBe('issued');
    }
  } finally {
    await runner.stop();
  }
});

test('two runners draining at once issue every order exactly once', async () => {
  const slugs = await placeOrders(6);
  const make = () => inProcessOrderRunner({ store: f.store, keyBackends: { default: f.keyBackend } });
  const [a, b] = await Promise.all([make().drain(), make().drain()]);
  expect(a + b).toBe(6);
  for (const slug of slugs) expect(await status(slug)).toBe('issued');
  const orders = await f.db.knex(TABLES.orders).whereIn('slug', slugs).select('certificate_id');
  expect(new Set(orders.map((o: { certificate_id: unknown }) => String(o.certificate_id))).size).toBe(6);
});

test('a failure is recorded on the order and the runner goes on with the next', async () => {
  const [bad, good] = await placeOrders(2);
  // The first order's not_after is moved into the past while it waits: it fails; the second is issued.
  const row = await f.db.knex(TABLES.orders).where({ slug: bad }).first();
  const req = typeof row.request === 'string' ? JSON.parse(row.request) : row.request;
  await f.db
    .knex(TABLES.orders)
    .where({ slug: bad })
    .update({ request: JSON.stringify({ ...req, notAfter: '2000-01-01T00:00:00Z' }) });
  const drained = await inProcessOrderRunner({ store: f.store, keyBackends: { default: f.keyBackend } }).drain();
  expect(drained).toBe(2);
  const failed = await f.store.getOrder(bad);
  expect(failed?.status).toBe('failed');
  expect(failed?.error).toMatch(/past/);
  expect(await status(good)).toBe('issued');
});

test('the router starts an in-process runner when the host gives none', async () => {
  // buildApp gives an idle runner unless told otherwise; `undefined` asks for the router's default.
  const own = buildApp({ enableRestApi: true, store: f.store, keyBackends: { default: f.keyBackend }, orderRunner: undefined });
  try {
    const res = await request(own.app)
      .post(`${API}/ca/${f.ca.serial}/sign/`)
      .set(f.auth('alice'))
      .send({ csr, subject: [{ oid: 'CN', value: 'default-runner.example.com' }] });
    expect(res.status).toBe(200);
    const order = await waitForOrder(own.app, f.ca.serial, res.body.slug, f.auth('alice'));
    expect(order.status).toBe('issued');
  } finally {
    await own.close();
  }
});

test('JSON output keeps integers beyond 2^53 exact', () => {
  const big = 2n ** 70n + 1n;
  const text = serializeJson({ authority_cert_serial_number: big, s: '12345678901234567890' });
  expect(text).toBe('{"authority_cert_serial_number":1180591620717411303425,"s":"12345678901234567890"}');
  expect(parseJsonExact(text)).toEqual({ authority_cert_serial_number: big, s: '12345678901234567890' });
});
