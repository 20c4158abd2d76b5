/**
 * Finished orders from memory and sign requests that wait for their order (lib/api/order-cache.ts,
 * the `orderWaitMs` option): a finished order never changes, so polls for it need no database read;
 * a pending one is always read again; the sign answer stays `pending` (upstream) while the first poll
 * finds the certificate.
 */
import request from 'supertest';
import { OrderCache } from '../../lib/api/order-cache';
import type { OrderRecord, OrderRunner, OrderSettledEvents, Store } from '../../lib/ports';
import { API, opensslCsr, setupApi, type ApiFixture } from './fixture';

function order(id: number, status: OrderRecord['status']): OrderRecord {
  const now = new Date();
  return {
    id,
    created: now,
    updated: now,
    slug: `slug${String(id).padStart(8, '0')}`,
    caId: 1,
    userId: 1,
    status,
    certificateSerial: status === 'issued' ? 'ABC' : null,
    certificateId: status === 'issued' ? 7 : null,
    error: status === 'failed' ? 'no' : null,
    request: {} as OrderRecord['request'],
    leaseOwner: null,
    leaseExpires: null,
  };
}

/** A store holding some orders, counting reads; a runner whose announcements the test makes. */
function fakes(rows: OrderRecord[]) {
  let reads = 0;
  const store = {
    getOrder: async (slug: string) => {
      reads++;
      return rows.find((r) => r.slug === slug) ?? null;
    },
  } as Pick<Store, 'getOrder'>;
  const listeners = new Set<(o: OrderRecord) => void>();
  const runner: OrderRunner & OrderSettledEvents = {
    start: async () => undefined,
    stop: async () => undefined,
    notify: () => undefined,
    onOrderSettled: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
  return { store, runner, reads: () => reads, announce: (o: OrderRecord) => listeners.forEach((l) => l(o)), listeners };
}

describe('OrderCache', () => {
  test('finished orders are read once; pending ones every time', async () => {
    const f = fakes([order(1, 'issued'), order(2, 'pending'), order(3, 'failed')]);
    const cache = new OrderCache(f.store, f.runner);
    for (let i = 0; i < 3; i++) {
      expect((await cache.getOrder('slug00000001'))?.status).toBe('issued');
      expect((await cache.getOrder('slug00000002'))?.status).toBe('pending');
      expect((await cache.getOrder('slug00000003'))?.status).toBe('failed');
    }
    expect(f.reads()).toBe(1 + 3 + 1);
    expect(await cache.getOrder('unknown')).toBeNull();
    cache.close();
  });

  test('an announced order is answered from memory, and wakes whoever waits for it', async () => {
    const f = fakes([]);
    const cache = new OrderCache(f.store, f.runner);
    expect(cache.announced).toBe(true);
    let woken = false;
    const waiting = cache.waitUntilFinished(5, 60_000).then(() => (woken = true));
    await new Promise((r) => setImmediate(r));
    expect(woken).toBe(false);
    f.announce(order(5, 'issued'));
    await waiting;
    expect(woken).toBe(true);
    expect((await cache.getOrder('slug00000005'))?.certificateSerial).toBe('ABC');
    expect(f.reads()).toBe(0);
    // Already finished: no waiting at all.
    await cache.waitUntilFinished(5, 60_000);
    cache.close();
  });

  test('waiting ends after the timeout, on close, and at once without announcements or with 0', async () => {
    const f = fakes([]);
    const cache = new OrderCache(f.store, f.runner);
    await cache.waitUntilFinished(6, 20); // nobody announces order 6
    await cache.waitUntilFinished(6, 0);
    const pending = cache.waitUntilFinished(7, 60_000);
    cache.close();
    await pending;
    expect(f.listeners.size).toBe(0); // unsubscribed
    const silent = new OrderCache(f.store, { start: async () => undefined, stop: async () => undefined, notify: () => undefined });
    expect(silent.announced).toBe(false);
    await silent.waitUntilFinished(8, 60_000); // resolves at once, or this test times out
    silent.close();
  });
});

describe('through the router', () => {
  let f: ApiFixture;
  let csr: string;
  beforeAll(async () => {
    f = await setupApi();
    csr = opensslCsr('EC').csr;
  });
  afterAll(() => f.close());

  test('the sign answer is the order as created (pending, as upstream); the first poll finds it issued', async () => {
    for (let i = 0; i < 3; i++) {
      const signed = await request(f.app)
        .post(`${API}/ca/${f.ca.serial}/sign/`)
        .set(f.auth('alice'))
        .send({ csr, subject: [{ oid: 'CN', value: 'wait.example.com' }] });
      expect(signed.status).toBe(200);
      expect(signed.body).toMatchObject({ status: 'pending', serial: null });
      const polled = await request(f.app).get(`${API}/ca/${f.ca.serial}/orders/${signed.body.slug}/`).set(f.auth('alice'));
      expect(polled.body.status).toBe('issued');
      expect(polled.body.serial).toMatch(/^[0-9A-F]+$/);
      expect(polled.body.created).toBe(signed.body.created);
      // What memory answers is what the database holds.
      const stored = await f.store.getOrder(signed.body.slug);
      expect(polled.body.updated).toBe(stored?.updated.toISOString());
      expect(polled.body.serial).toBe(stored?.certificateSerial);
      // Another user still gets a 404 for it.
      expect((await request(f.app).get(`${API}/ca/${f.ca.serial}/orders/${signed.body.slug}/`).set(f.auth('bob'))).status).toBe(404);
    }
  });
});
