/**
 * A subset of the endpoint tests against PostgreSQL (TEST_DATABASE_URL), where concurrency is real:
 * sign → issued by the runner, list/view/revoke, foreign order 404, and two runners on separate
 * connection pools claiming disjoint orders (through their jobs: JobStore.claim), and the key signing with no lock on the order. Without the variable: skipped
 * locally, failed in CI (`describeOnPostgres`, test/helpers/database.ts).
 */
import request from 'supertest';
import { knexStore } from '../../adapters/store/knex';
import { inProcessOrderRunner } from '../../lib/ca/order-runner/in-process';
import type { BatchOrderStore, KeyBackend } from '../../lib/ports';
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
      for (const slug of slugs) expect(await f.store.getOrder(slug)).toMatchObject({ status: 'issued', error: null });
    } finally {
      await second.destroy();
    }
  });

  test('the key signs with no transaction open and no lock on the order: another connection locks and updates it meanwhile (batch and single paths)', async () => {
    await f.runner.stop(); // the fixture's runner stays out of this
    const slugs: string[] = [];
    for (let i = 0; i < 2; i++) slugs.push((await sign(`nolock${i}.example.com`)).body.slug);
    const ids = await Promise.all(slugs.map(async (slug) => (await f.store.getOrder(slug))!.id));
    const second = openSecondPool(pg.url, f.db.knex);
    const probes: string[] = [];
    let probesDone: Promise<unknown> = Promise.resolve();
    const probing: KeyBackend = {
      ...f.keyBackend,
      async getSigner(options) {
        const signer = await f.keyBackend.getSigner(options);
        return {
          ...signer,
          sign: async (data, o) => {
            // From another pool: lock the orders and write to them, one probe at a time (a batch signs its
            // orders side by side). A lock held by this signature's own runner could never be granted while
            // it signs: the probe would time out (lock_timeout) and the signature fail. A lock another job
            // holds for the moment of its storing statement is waited for (NOWAIT made that a failure).
            const probe = probesDone.then(() =>
              second.transaction(async (trx) => {
                await trx.raw("set local lock_timeout = '3s'");
                await trx.raw('select id from ca_api_orders where id = any(?::int[]) for update', [`{${ids.join(',')}}`]);
                await trx('ca_api_orders').whereIn('id', ids).update({ updated: new Date() });
              }),
            );
            probesDone = probe.catch(() => undefined);
            await probe;
            probes.push('locked and updated');
            return signer.sign(data, o);
          },
        };
      },
    };
    // The batch's statement is refused once: its orders go one at a time as jobs (single-order.ts).
    const refusing = Object.create(f.store) as typeof f.store & BatchOrderStore;
    let refused = 0;
    refusing.issueOrders = async (...args) => {
      if (refused++ === 0) throw new Error('refused once by the test');
      return (f.store as typeof refusing).issueOrders(...args);
    };
    try {
      const errors: unknown[] = [];
      await inProcessOrderRunner({ store: refusing, keyBackends: { default: probing }, logError: (_m, e) => errors.push(e) }).drain();
      for (const slug of slugs) expect(await f.store.getOrder(slug)).toMatchObject({ status: 'issued', error: null });
      expect(refused).toBe(3); // the batch, then each order alone
      expect(probes).toHaveLength(4); // two signatures in the refused batch, one per order alone: none under a lock
      expect(errors.map(String)).toEqual(['Error: refused once by the test']);
    } finally {
      await second.destroy();
    }
  });
});
