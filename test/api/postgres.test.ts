/**
 * A subset of the endpoint tests against PostgreSQL (TEST_DATABASE_URL), where concurrency is real:
 * sign → issued by the runner, list/view/revoke, foreign order 404, and two runners on separate
 * connection pools claiming disjoint orders (FOR UPDATE SKIP LOCKED). Without the variable: skipped
 * locally, failed in CI (`describeOnPostgres`, test/helpers/database.ts).
 */
import request from 'supertest';
import { knexStore } from '../../adapters/store/knex';
import { inProcessOrderRunner } from '../../lib/ca/order-runner/in-process';
import { describeOnPostgres, openSecondPool } from '../helpers/database';
import { API, opensslCsr, setupApi, waitForOrder, type ApiFixture } from './fixture';

describeOnPostgres('on PostgreSQL', (pg) => {
  let f: ApiFixture;
  let csr: string;
  beforeAll(async () => {
    f = await setupApi(pg);
    csr = opensslCsr('EC').csr;
  });
  afterAll(() => f?.close());

  const sign = (cn: string) =>
    request(f.app)
      .post(`${API}/ca/${f.ca.serial}/sign/`)
      .set(f.auth('alice'))
      .send({ csr, subject: [{ oid: 'CN', value: cn }] });

  test('sign, poll, list, view, revoke; a foreign order is a 404', async () => {
    const res = await sign('pg.example.com');
    expect(res.status).toBe(200);
    const order = await waitForOrder(f.app, f.ca.serial, res.body.slug, f.auth('alice'));
    expect(order.status).toBe('issued');
    const list = await request(f.app).get(`${API}/ca/${f.ca.serial}/certs/`).set(f.auth('alice'));
    expect(list.body.map((c: { certificate: { serial: string } }) => c.certificate.serial)).toContain(order.serial);
    const revoked = await request(f.app)
      .post(`${API}/ca/${f.ca.serial}/certs/${order.serial}/revoke/`)
      .set(f.auth('alice'))
      .send({ reason: 'key_compromise' });
    expect(revoked.body.revoked_reason).toBe('key_compromise');
    const foreign = await request(f.app).get(`${API}/ca/${f.ca.serial}/orders/${res.body.slug}/`).set(f.auth('bob'));
    expect(foreign.status).toBe(404);
  });

  test('runners on two connection pools issue every order exactly once', async () => {
    await f.runner.stop(); // the fixture's runner stays out of this
    const slugs: string[] = [];
    for (let i = 0; i < 8; i++) slugs.push((await sign(`pool${i}.example.com`)).body.slug);
    const second = openSecondPool(pg.url, f.db.knex);
    try {
      const keyBackends = { default: f.keyBackend };
      const counts = await Promise.all([
        inProcessOrderRunner({ store: f.store, keyBackends }).drain(),
        inProcessOrderRunner({ store: knexStore(second), keyBackends }).drain(),
      ]);
      expect(counts[0] + counts[1]).toBe(8);
      for (const slug of slugs) expect((await f.store.getOrder(slug))?.status).toBe('issued');
    } finally {
      await second.destroy();
    }
  });
});
