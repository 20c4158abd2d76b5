/**
 * The order runner's batches (lib/ca/order-runner/in-process.ts): several orders are finished in one
 * transaction, and when the database refuses one order of a batch the others are still issued while
 * that one ends `failed` (the batch is redone one order per transaction). Real store (PGlite), a
 * PostgreSQL trigger plays the database refusing one certificate.
 */
import request from 'supertest';
import { TABLES } from '../../adapters/store/knex/tables';
import { inProcessOrderRunner } from '../../lib/ca/order-runner/in-process';
import { JOB_KINDS, type BatchOrderStore, type JobStoreProvider, type KeyBackend, type OrderRunner, type Store } from '../../lib/ports';
import { API, opensslCsr, setupApi, type ApiFixture } from './fixture';

const holding: OrderRunner = { start: async () => undefined, stop: async () => undefined, notify: () => undefined };

let f: ApiFixture;
let csr: string;
const jobs = { listJobs: (filter: { kind: string }) => (f.store as unknown as JobStoreProvider).jobs.listJobs(filter) };
beforeAll(async () => {
  f = await setupApi(undefined, { orderRunner: holding });
  csr = opensslCsr('EC').csr;
});
afterAll(() => f.close());

async function placeOrders(cns: string[]): Promise<string[]> {
  const slugs: string[] = [];
  for (const cn of cns) {
    const res = await request(f.app)
      .post(`${API}/ca/${f.ca.serial}/sign/`)
      .set(f.auth('alice'))
      .send({ csr, subject: [{ oid: 'CN', value: cn }] });
    expect(res.status).toBe(200);
    slugs.push(res.body.slug);
  }
  return slugs;
}

/** The store, counting the transactions opened on it. */
function countingTransactions(store: Store): { store: Store; count: () => number } {
  let count = 0;
  const wrapped = Object.create(store) as Store;
  wrapped.transaction = (fn) => {
    count++;
    return store.transaction(fn);
  };
  return { store: wrapped, count: () => count };
}

test('a batch of orders is finished with four statements and the events of its certificates, each order with its own certificate', async () => {
  const slugs = await placeOrders(['b1.example.com', 'b2.example.com', 'b3.example.com', 'b4.example.com', 'b5.example.com']);
  const { store, count } = countingTransactions(f.store);
  const statements: string[] = [];
  const onQuery = (q: { sql: string }) => statements.push(q.sql);
  f.db.knex.on('query', onQuery);
  let drained: number;
  try {
    drained = await inProcessOrderRunner({
      store,
      keyBackends: { default: f.keyBackend },
      concurrency: 1,
      logError: () => undefined,
    }).drain();
  } finally {
    f.db.knex.off('query', onQuery);
  }
  expect(drained).toBe(5);
  // Claim their jobs (the one claim statement), read the orders, read their CA, record the five
  // intents in one statement (before any signature: docs/DESIGN.md "Issuing authority"), then ONE
  // statement that stores the certificates, marks the orders issued, completes their jobs and appends
  // the five events — no transaction around it. The claim came back short of a page, so nothing is
  // left to look for: no further claim (lib/ca/order-runner/order-intake.ts).
  expect(count()).toBe(0);
  expect(statements).toHaveLength(5);
  expect(statements[0]).toMatch(/^UPDATE ca_api_jobs SET lease_owner = /);
  expect(statements.filter((sql) => /INSERT INTO "ca_api_issuance_intents"/.test(sql))).toHaveLength(1);
  const stored = statements.filter((sql) => /insert into "ca_api_certificates"/.test(sql));
  expect(stored).toHaveLength(1);
  expect(stored[0]).toMatch(/update ca_api_jobs j set state = 'done'[^]*insert into "ca_api_events"/i);
  expect(statements.filter((sql) => /^(BEGIN|COMMIT);$/.test(sql))).toEqual([]);
  expect(statements.filter((sql) => /for update/i.test(sql) && /ca_api_orders/.test(sql))).toEqual([]); // no row lock on an order
  for (const [i, slug] of slugs.entries()) {
    const order = await f.store.getOrder(slug);
    expect(order?.status).toBe('issued');
    const cert = await f.store.findCertificate(f.ca.id, order!.certificateSerial!);
    expect(cert?.cn).toBe(`b${i + 1}.example.com`);
    expect(cert?.id).toBe(order?.certificateId);
  }
});

test('batchSize 1 takes one order at a time: claimed through its job, signed and stored with no transaction open', async () => {
  await placeOrders(['s1.example.com', 's2.example.com']);
  const { store, count } = countingTransactions(f.store);
  const drained = await inProcessOrderRunner({ store, keyBackends: { default: f.keyBackend }, batchSize: 1 }).drain();
  expect(drained).toBe(2);
  // Per order a claim of one job and one statement that stores it (no row lock held while the key signs).
  expect(count()).toBe(0);
});

test('an order the database refuses fails alone; the rest of its batch is issued', async () => {
  // The database refuses certificates for one name: the batch insert fails as a whole.
  await f.db.knex.raw(`
    create or replace function ca_api_test_refuse() returns trigger language plpgsql as $$
    begin
      if new.cn = 'refused.example.com' then raise exception 'refused by the test trigger'; end if;
      return new;
    end $$`);
  await f.db.knex.raw(
    `create trigger ca_api_test_refuse before insert on ${TABLES.certificates} for each row execute function ca_api_test_refuse()`,
  );
  try {
    const slugs = await placeOrders(['ok1.example.com', 'refused.example.com', 'ok2.example.com', 'ok3.example.com']);
    const errors: unknown[] = [];
    const runner = inProcessOrderRunner({
      store: f.store,
      keyBackends: { default: f.keyBackend },
      logError: (_m, e) => errors.push(e), // pollIntervalMs 1000: a first back-off of 500..1000 ms
    });
    await runner.drain();
    const statusesNow = async () => Promise.all(slugs.map(async (slug) => (await f.store.getOrder(slug))?.status));
    // The others issued; the refused one taken alone, its failed attempt counted in its job, with back-off.
    expect(await statusesNow()).toEqual(['issued', 'pending', 'issued', 'issued']);
    const refused = (await f.store.getOrder(slugs[1]))!;
    const jobOf = async () => (await jobs.listJobs({ kind: JOB_KINDS.restOrder })).find((j) => j.reference === String(refused.id))!;
    const first = await jobOf();
    expect(first).toMatchObject({ state: 'pending', attempts: 1, leaseOwner: null });
    expect(first.lastError).toBeTruthy(); // the refusal, as the database gave it
    expect(first.runAt.getTime()).toBeGreaterThan(Date.now()); // due only after its back-off
    // Driven until its attempts are spent (maxAttempts 3): the ORDER fails with the reason, its job is done.
    for (let i = 0; i < 50 && (await f.store.getOrder(slugs[1]))?.status === 'pending'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      await runner.drain();
    }
    expect(await statusesNow()).toEqual(['issued', 'failed', 'issued', 'issued']);
    expect(await jobOf()).toMatchObject({ state: 'done', leaseOwner: null });
    const failed = await f.store.getOrder(slugs[1]);
    expect(failed?.error).toMatch(/database/);
    expect(errors.length).toBeGreaterThan(0);
    const issued = await f.db.knex(TABLES.certificates).where({ cn: 'refused.example.com' });
    expect(issued).toHaveLength(0);
  } finally {
    await f.db.knex.raw(`drop trigger ca_api_test_refuse on ${TABLES.certificates}`);
  }
});

test('orders another worker finishes while a batch is being signed are left as that worker left them', async () => {
  const slugs = await placeOrders(['mine1.example.com', 'theirs.example.com', 'mine2.example.com']);
  const theirs = (await f.store.getOrder(slugs[1]))!;
  // Another instance finishes one of the listed orders between our read and our transaction.
  const racing = Object.create(f.store) as Store & BatchOrderStore;
  const read = (f.store as Store & BatchOrderStore).pendingOrders.bind(f.store);
  racing.pendingOrders = async (ids) => {
    const listed = await read(ids);
    await f.db.knex(TABLES.orders).where({ id: theirs.id }).update({ status: 'failed', error: 'finished elsewhere' });
    return listed;
  };
  const settled: string[] = [];
  const runner = inProcessOrderRunner({ store: racing, keyBackends: { default: f.keyBackend }, logError: () => undefined });
  runner.onOrderSettled((o) => settled.push(o.slug));
  expect(await runner.drain()).toBe(2);
  expect((await f.store.getOrder(slugs[0]))?.status).toBe('issued');
  expect((await f.store.getOrder(slugs[2]))?.status).toBe('issued');
  expect(await f.store.getOrder(slugs[1])).toMatchObject({ status: 'failed', error: 'finished elsewhere' });
  // Its certificate was signed but never stored, and nobody was told it is finished by this runner.
  expect(await f.db.knex(TABLES.certificates).where({ cn: 'theirs.example.com' })).toHaveLength(0);
  expect(settled.sort()).toEqual([slugs[0], slugs[2]].sort());
});

test('batches under way at once never take the same order twice', async () => {
  const names = Array.from({ length: 12 }, (_, i) => `lane${i}.example.com`);
  const slugs = await placeOrders(names);
  const errors: unknown[] = [];
  let signatures = 0;
  const counting: KeyBackend = {
    ...f.keyBackend,
    async getSigner(options) {
      const signer = await f.keyBackend.getSigner(options);
      return { ...signer, sign: (data, o) => (signatures++, signer.sign(data, o)) };
    },
  };
  const runner = inProcessOrderRunner({
    store: f.store,
    keyBackends: { default: counting },
    batchSize: 3,
    concurrency: 3,
    logError: (_m, e) => errors.push(e),
  });
  expect(await runner.drain()).toBe(12);
  expect(errors).toEqual([]);
  expect(signatures).toBe(12); // no order was signed by two batches
  const orders = await Promise.all(slugs.map((slug) => f.store.getOrder(slug)));
  expect(orders.every((o) => o?.status === 'issued')).toBe(true);
  expect(new Set(orders.map((o) => o?.certificateId)).size).toBe(12);
  const stored = await f.db.knex(TABLES.certificates).whereIn('cn', names);
  expect(stored).toHaveLength(12); // nothing signed twice made it into the store
});

test('orders of a batch that cannot be signed fail with their reason in one statement; the others are issued', async () => {
  const [ok] = await placeOrders(['signable.example.com']);
  const placed = (await f.store.getOrder(ok))!;
  // Orders whose stored request no longer holds a CSR that parses (written by hand, say).
  const unsignable = async () => f.store.createOrder({ ...placed, request: { ...placed.request, csr: placed.request.csr.slice(0, 120) } });
  const [bad1, bad2] = [await unsignable(), await unsignable()];
  const statements: string[] = [];
  const onQuery = (q: { sql: string }) => statements.push(q.sql);
  f.db.knex.on('query', onQuery);
  const settled: string[] = [];
  try {
    const runner = inProcessOrderRunner({
      store: f.store,
      keyBackends: { default: f.keyBackend },
      concurrency: 1,
      logError: () => undefined,
    });
    runner.onOrderSettled((o) => settled.push(`${o.slug} ${o.status}`));
    expect(await runner.drain()).toBe(3);
  } finally {
    f.db.knex.off('query', onQuery);
  }
  expect(await f.store.getOrder(ok)).toMatchObject({ status: 'issued', error: null });
  for (const bad of [bad1, bad2]) {
    const order = await f.store.getOrder(bad.slug);
    expect(order).toMatchObject({ status: 'failed', certificateId: null });
    expect(order?.error).toMatch(/CSR|PEM|certificate signing request/i);
  }
  // Claim the jobs, read the orders, their CA; record the intent of the one that can be signed (the
  // others fail before any intent); store the issued one; mark both failures: one statement each,
  // each completing its orders' jobs and appending their events, with no transaction around it.
  const failing = statements.filter((sql) => /update "ca_api_orders" as o set status = 'failed'/.test(sql));
  expect(failing).toHaveLength(1);
  expect(failing[0]).toMatch(/update ca_api_jobs j set state = 'done'[^]*insert into "ca_api_events"/i);
  expect(statements.filter((sql) => /insert into "ca_api_events"/.test(sql))).toHaveLength(2);
  expect(statements).toHaveLength(6);
  expect(settled.sort()).toEqual([`${ok} issued`, `${bad1.slug} failed`, `${bad2.slug} failed`].sort());
});
