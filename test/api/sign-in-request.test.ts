/**
 * createCaApiRouter's `signInRequest` and the in-process runner's `finishNow` (lib/ca/order-runner/
 * finish-now.ts, docs/DESIGN.md "Orders signed in the request"): where this process runs the order
 * runner, POST sign/resign have it sign the certificate at once and write the order already issued
 * with ONE statement; the answer is still the order as placed (`pending`, serial
 * null, as upstream). Whatever does not go smoothly takes the queued path: a CA revoked behind the
 * cache's back, a signing failure; `signInRequest: false` always does.
 */
import request from 'supertest';
import { TABLES } from '../../adapters/store/knex/tables';
import { inProcessOrderRunner } from '../../lib/ca/order-runner/in-process';
import { StoreUnavailableError, type OrderRecord, type Store } from '../../lib/ports';
import { API, opensslCsr, setupApi, waitForOrder, type ApiFixture } from './fixture';

let f: ApiFixture;
let csr: string;

beforeAll(async () => {
  f = await setupApi();
  csr = opensslCsr('EC', 'in-request.example.com').csr;
});
afterAll(() => f.close());

/** The runner's own poll for orders from elsewhere (every 50 ms in the fixture), not the request's. */
const RUNNER_POLL = /^UPDATE ca_api_jobs SET lease_owner = |^select \* from "ca_api_orders" where "status" = \$1/;

/** The SQL statements `work` sends to the database, but for the runner's poll. */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const statements: string[] = [];
  const onQuery = (q: { sql: string }) => {
    if (!RUNNER_POLL.test(q.sql)) statements.push(q.sql);
  };
  f.db.knex.on('query', onQuery);
  try {
    await work();
  } finally {
    f.db.knex.off('query', onQuery);
  }
  return statements;
}

function sign(caSerial: string, body: Record<string, unknown> = {}) {
  return request(f.app)
    .post(`${API}/ca/${caSerial}/sign/`)
    .set(f.auth('alice'))
    .send({ csr, subject: [{ oid: 'CN', value: 'in-request.example.com' }], ...body });
}

test('the order is written issued, with its certificate, in one statement (its event in the same transaction); the answer is the order as placed', async () => {
  await sign(f.ca.serial); // warm: CA and user caches
  let res!: request.Response;
  const statements = await statementsOf(async () => {
    res = await sign(f.ca.serial);
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'pending', serial: null });
  expect(res.body.updated).toBe(res.body.created);
  // The issuance intent, committed before the signature (docs/DESIGN.md "Issuing authority"), then
  // ONE statement that inserted the certificate, the order and its event (no transaction around it).
  expect(statements).toHaveLength(2);
  expect(statements[0]).toMatch(/INSERT INTO "ca_api_issuance_intents"/);
  expect(statements[1]).toMatch(/insert into "ca_api_certificates"/);
  expect(statements[1]).toMatch(/insert into "ca_api_orders"/);
  expect(statements[1]).toMatch(/insert into "ca_api_events"/);
  // The first poll finds it issued, answered from memory (no statement).
  let poll!: request.Response;
  const pollStatements = await statementsOf(async () => {
    poll = await request(f.app).get(`${API}/ca/${f.ca.serial}/orders/${res.body.slug}/`).set(f.auth('alice'));
  });
  expect(poll.body.status).toBe('issued');
  expect(pollStatements).toHaveLength(0);
  // The database agrees: issued, pointing at a certificate of this CA with that serial.
  const row = await f.db.knex(TABLES.orders).where({ slug: res.body.slug }).first();
  expect(row).toMatchObject({ status: 'issued', error: null });
  // Finished in the request: no background job was ever written for it.
  expect(await f.db.knex(TABLES.jobs).where({ kind: 'rest_order', reference: String(row.id) })).toEqual([]);
  const cert = await f.store.findCertificate(f.ca.id, poll.body.serial);
  expect(cert?.id).toBe(Number(row.certificate_id));
  expect(cert?.cn).toBe('in-request.example.com');
  // The order as read back from the store (another process's view) is the same.
  expect(await f.store.getOrder(res.body.slug)).toMatchObject({ status: 'issued', certificateSerial: poll.body.serial });
});

test('a CA revoked in the database (the cache still holds it unrevoked) issues nothing: the order fails', async () => {
  const other = await f.makeCa({ name: 'revoked-behind-cache', apiEnabled: true });
  expect((await sign(other.serial)).status).toBe(200); // the CA is now in the router's CA cache
  const before = await f.db.knex(TABLES.certificates).where({ ca_id: other.id }).count({ n: '*' }).first();
  // Another instance revokes it: a direct write, no change event reaches this router's cache.
  await f.db.knex(TABLES.cas).where({ id: other.id }).update({ revoked: true, revoked_date: new Date(), revoked_reason: 'key_compromise' });
  const res = await sign(other.serial);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'pending', serial: null });
  const order = await waitForOrder(f.app, other.serial, res.body.slug, f.auth('alice'));
  expect(order.status).toBe('failed');
  expect((await f.store.getOrder(res.body.slug))?.error).toMatch(/revoked/);
  const after = await f.db.knex(TABLES.certificates).where({ ca_id: other.id }).count({ n: '*' }).first();
  expect(Number(after?.n)).toBe(Number(before?.n));
});

test('a signing failure takes the queued path: the order is failed with its reason', async () => {
  // A CA whose private key is gone (as after `import_ca` without a key) passes every check but cannot sign.
  const keyless = await f.makeCa({ name: 'keyless-in-request', apiEnabled: true });
  await f.db.knex(TABLES.cas).where({ id: keyless.id }).update({ key_backend_options: null });
  const res = await sign(keyless.serial);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'pending', serial: null });
  const order = await waitForOrder(f.app, keyless.serial, res.body.slug, f.auth('alice'));
  expect(order).toMatchObject({ status: 'failed', serial: null });
  expect(order.error).toMatch(/private key/i);
  expect(await f.db.knex(TABLES.orders).where({ slug: res.body.slug }).first()).toMatchObject({ status: 'failed', error_code: 1 });
});

test('finishNow: a stopped runner finishes nothing; a started one signs, writes and announces', async () => {
  const placed = await sign(f.ca.serial);
  const { request: signRequest } = (await f.store.getOrder(placed.body.slug))!;
  const runner = inProcessOrderRunner({ store: f.store, keyBackends: { default: f.keyBackend }, logError: () => undefined });
  const announced: OrderRecord[] = [];
  runner.onOrderSettled((order) => announced.push(order));
  const order = { caId: f.ca.id, userId: (await f.store.findUser('alice'))!.id, request: signRequest };
  expect(await runner.finishNow(order, f.ca)).toBeNull();
  await runner.start();
  try {
    const issued = await runner.finishNow(order, f.ca);
    expect(issued).toMatchObject({ status: 'issued', caId: f.ca.id });
    expect(announced).toEqual([issued]);
    expect(await f.store.getOrder(issued!.slug)).toEqual(issued);
  } finally {
    await runner.stop();
  }
});

test('finishNow: an outage while writing is thrown (for the 503); any other store error declines (null) and is logged', async () => {
  const placed = await sign(f.ca.serial);
  const { request: signRequest } = (await f.store.getOrder(placed.body.slug))!;
  const order = { caId: f.ca.id, userId: (await f.store.findUser('alice'))!.id, request: signRequest };
  for (const [error, expectThrown] of [
    [new StoreUnavailableError('connection refused', { connectionLost: true }), true],
    [new StoreUnavailableError('deadlock detected'), false],
  ] as const) {
    // The real store, with its issued-order write failing as the database would.
    const failing = Object.create(f.store) as Store & { createIssuedOrder(): Promise<never> };
    failing.createIssuedOrder = () => Promise.reject(error);
    const logged: unknown[] = [];
    const runner = inProcessOrderRunner({ store: failing, keyBackends: { default: f.keyBackend }, logError: (_m, e) => logged.push(e) });
    await runner.start();
    try {
      if (expectThrown) {
        await expect(runner.finishNow(order, f.ca)).rejects.toBe(error);
        expect(logged).toEqual([]);
      } else {
        expect(await runner.finishNow(order, f.ca)).toBeNull();
        expect(logged).toEqual([error]);
      }
    } finally {
      await runner.stop();
    }
  }
});

describe('signInRequest: false', () => {
  let g: ApiFixture;
  beforeAll(async () => {
    g = await setupApi(undefined, { signInRequest: false });
  });
  afterAll(() => g.close());

  test('the order is written pending and finished by the runner', async () => {
    const statements: string[] = [];
    const onQuery = (q: { sql: string }) => statements.push(q.sql);
    g.db.knex.on('query', onQuery);
    let res!: request.Response;
    try {
      res = await request(g.app)
        .post(`${API}/ca/${g.ca.serial}/sign/`)
        .set(g.auth('alice'))
        .send({ csr, subject: [{ oid: 'CN', value: 'queued.example.com' }] });
    } finally {
      g.db.knex.off('query', onQuery);
    }
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'pending', serial: null });
    // The pending INSERT of the order with its rest_order job (one statement), then the runner's statement that stores the certificate.
    const orderInsert = statements.findIndex((sql) => /insert into "ca_api_orders"[^]*insert into "?ca_api_jobs"?/i.test(sql));
    const certificateInsert = statements.findIndex((sql) => /insert into "ca_api_certificates"/.test(sql));
    expect(orderInsert).toBeGreaterThanOrEqual(0);
    expect(certificateInsert).toBeGreaterThan(orderInsert);
    expect((await waitForOrder(g.app, g.ca.serial, res.body.slug, g.auth('alice'))).status).toBe('issued');
  });
});
