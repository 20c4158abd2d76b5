/**
 * Two processes' worth of writers on one PostgreSQL: separate knex pools insert certificates and
 * claim orders at the same time. Unique constraints must stop duplicate serials, SKIP LOCKED must
 * hand each order to one worker, and nothing may be half-written. PostgreSQL only: PGlite serves one
 * connection, so there is nothing concurrent to test there (without PostgreSQL, skipped locally and
 * failed in CI: `describeOnPostgres`).
 */
import type { Knex } from 'knex';
import { knexStore } from '../../adapters/store/knex';
import { hasBatchOrders, hasJobStore, JOB_KINDS, StoreConflictError, type Store } from '../../lib/ports';
import { describeOnPostgres, openSecondPool, openTestDatabase, type TestDatabase } from '../helpers/database';
import { newCa, newCertificate, randomSerial, signRequest } from './records';

describeOnPostgres('concurrent writers on PostgreSQL', (target) => {
  let db: TestDatabase;
  let otherKnex: Knex;
  let a: Store;
  let b: Store;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    otherKnex = openSecondPool(target.url, db.knex);
    a = db.store;
    b = knexStore(otherKnex);
  });
  afterAll(async () => {
    await otherKnex?.destroy();
    await db?.close();
  });
  beforeEach(async () => {
    await db.truncate();
  });

  it('never stores a serial twice for one CA and keeps every stored row intact', async () => {
    const ca = await a.insertCa(newCa());
    // 40 distinct serials, each inserted by both writers at once with writer-specific contents.
    const serials = Array.from({ length: 40 }, () => randomSerial());
    const attempts = serials.flatMap((serial) =>
      (['a', 'b'] as const).map((writer) => ({
        store: writer === 'a' ? a : b,
        cert: newCertificate(ca.id, { serial, cn: `${writer}-${serial}`, profile: writer, der: Buffer.from(`${writer}${serial}`) }),
      })),
    );
    const results = await Promise.allSettled(attempts.map(({ store, cert }) => store.insertCertificate(cert)));

    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(serials.length);
    expect(lost).toHaveLength(serials.length);
    for (const failure of lost) {
      expect(failure.reason).toBeInstanceOf(StoreConflictError);
      expect(failure.reason).toMatchObject({ entity: 'certificate', field: 'serial' });
    }

    const stored = await a.listCertificates({ caId: ca.id, limit: 1000 });
    expect(stored.map((c) => c.serial).sort()).toEqual([...serials].sort());
    for (const cert of stored) {
      // Every column of a stored row comes from one writer: no mix of the two competing inserts.
      const { id, created, updated, watchers, ...row } = cert;
      const writer = cert.profile;
      const want = attempts.find((x) => x.cert.serial === cert.serial && x.cert.profile === writer)?.cert;
      expect(want).toBeDefined();
      expect(row).toEqual(want);
    }
  });

  it('hands each pending order to exactly one of two workers (claimed through its job)', async () => {
    const ca = await a.insertCa(newCa());
    const user = await a.createUser('worker-test', 'h', []);
    const created = [];
    for (let i = 0; i < 10; i++) created.push(await a.createOrder({ caId: ca.id, userId: user.id, request: signRequest() }));

    // Both workers claim at once, like two busy worker processes, then finish what they got.
    const work = async (store: Store, owner: string) => {
      if (!hasJobStore(store) || !hasBatchOrders(store)) throw new Error('the knex store takes orders through jobs');
      const mine = await store.jobs.claim([JOB_KINDS.restOrder], owner, 6, 60_000);
      const orders = await store.pendingOrders(mine.map((j) => Number(j.reference)));
      const failed = await store.failOrders(
        orders.map((order) => ({ order, reason: `claimed by ${owner}` })),
        owner,
      );
      return failed.map((o) => o.id);
    };
    const [fromA, fromB] = await Promise.all([work(a, 'a'), work(b, 'b')]);

    expect(fromA.filter((id) => fromB.includes(id))).toEqual([]);
    expect([...fromA, ...fromB].sort((x, y) => x - y)).toEqual(created.map((o) => o.id));
    for (const order of created) expect((await a.getOrder(order.slug))?.status).toBe('failed');
  });
});
