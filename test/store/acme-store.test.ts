/**
 * The knex store's ACME writes and reads (`store.acme`, adapters/store/knex/acme/), on every test
 * database target: a new order with its authorizations and challenges in one statement (and nothing
 * written past a rate limit), validations recorded in one statement each — an order with two
 * authorizations validated at once becomes `ready` exactly when both are valid, whichever records
 * last —, the certificate stored with the order made `valid` by one of two racing completions only,
 * and lookups of concurrent requests grouped into one statement, each caller getting its own record.
 */
import { knexStore } from '../../adapters/store/knex';
import { TABLES } from '../../adapters/store/knex/tables';
import { StoreConflictError, type AcmeStore, type CaRecord, type JobStore, type NewAcmeOrder } from '../../lib/ports';
import { isPostgresUrl, openSecondPool, openTestDatabase, statementsOf, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { onChallengeStart, onIssuanceFailed, onIssued } from '../../lib/acme/state-machine';
import { record, startIssuance } from '../helpers/acme-state';
import { newCa, newCertificate, randomSerial, signRequest } from './records';

const HOUR = 3_600_000;

describe.each(testDatabaseTargets())('store.acme on $name', (target) => {
  let db: TestDatabase;
  let acme: AcmeStore;
  let ca: CaRecord;
  let accountId: number;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    acme = (db.store as unknown as { acme: AcmeStore }).acme;
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.truncate();
    ca = await db.store.insertCa(newCa());
    accountId = await newAccount('thumb');
  });

  /** A new account of the CA (its key is only a name here), by id. */
  async function newAccount(thumbprint: string): Promise<number> {
    const jwk = { kty: 'EC', crv: 'P-256', x: `x-${thumbprint}`, y: `y-${thumbprint}` };
    return (await acme.createAccount({ caId: ca.id, jwk, thumbprint, contact: [], termsOfServiceAgreed: true })).account.id;
  }

  function anOrder(names: string[]): NewAcmeOrder {
    return {
      accountId,
      caId: ca.id,
      expires: new Date(Date.now() + HOUR),
      notBefore: null,
      notAfter: null,
      identifiers: names.map((value) => ({ type: 'dns' as const, value })),
      authorizations: names.map((value) => ({
        identifier: { type: 'dns' as const, value },
        wildcard: false,
        challenges: [
          { type: 'http-01' as const, token: `${value}-http` },
          { type: 'dns-01' as const, token: `${value}-dns` },
        ],
      })),
    };
  }

  async function count(table: string): Promise<number> {
    const row = (await db.knex(table).count({ n: '*' }).first()) as { n: string | number };
    return Number(row.n);
  }

  test('createOrder writes the order, its authorizations in identifier order and their challenges', async () => {
    const order = await acme.createOrder(anOrder(['a.example', 'b.example', 'c.example']));
    if (!order) throw new Error('no order');
    expect(order).toMatchObject({ status: 'pending', accountId, caId: ca.id });
    expect(order.authorizations).toHaveLength(3);
    const read = await acme.findOrder(ca.id, order.slug);
    expect(read?.authorizations).toEqual(order.authorizations);
    const authz = await Promise.all(order.authorizations.map((slug) => acme.findAuthorization(ca.id, slug)));
    expect(authz.map((a) => a?.identifier.value)).toEqual(['a.example', 'b.example', 'c.example']);
    expect(authz.map((a) => a?.challenges.map((c) => c.token))).toEqual([
      ['a.example-http', 'a.example-dns'],
      ['b.example-http', 'b.example-dns'],
      ['c.example-http', 'c.example-dns'],
    ]);
  });

  test('createOrder past the limit writes nothing and answers null', async () => {
    const since = new Date(Date.now() - HOUR);
    expect(await acme.createOrder(anOrder(['one.example']), { max: 2, since })).not.toBeNull();
    expect(await acme.createOrder(anOrder(['two.example']), { max: 2, since })).not.toBeNull();
    expect(await acme.createOrder(anOrder(['three.example']), { max: 2, since })).toBeNull();
    expect(await count(TABLES.acmeOrders)).toBe(2);
    expect(await count(TABLES.acmeAuthorizations)).toBe(2);
    expect(await count(TABLES.acmeChallenges)).toBe(4);
  });

  async function startBoth(names: string[]) {
    const order = await acme.createOrder(anOrder(names));
    if (!order) throw new Error('no order');
    const authz = await Promise.all(order.authorizations.map((slug) => acme.findAuthorization(ca.id, slug)));
    const claimed = await Promise.all(authz.map((a) => start(a?.challenges[0].slug as string)));
    return { order, claimed };
  }

  function start(slug: string, owner = 'test-runner', account = accountId) {
    return acme.startValidation({ caId: ca.id, slug, accountId: account }, owner, 60_000, new Date(), onChallengeStart());
  }

  test('startValidation leases a pending challenge of the account once, with what validating and answering need', async () => {
    const order = await acme.createOrder(anOrder(['lease.example']));
    const authz = await acme.findAuthorization(ca.id, order?.authorizations[0] as string);
    const slug = authz?.challenges[0].slug as string;
    // Another account's challenge, or one of another CA, does not start.
    expect(await start(slug, 'test-runner', accountId + 1000)).toBeNull();
    expect(await acme.startValidation({ caId: ca.id + 1000, slug, accountId }, 'r', 60_000, new Date(), onChallengeStart())).toBeNull();
    expect((await acme.findAuthorization(ca.id, authz?.slug as string))?.challenges[0].status).toBe('pending');
    const claimed = await start(slug);
    expect(claimed).toMatchObject({
      identifier: { type: 'dns', value: 'lease.example' },
      thumbprint: 'thumb',
      authorizationSlug: authz?.slug,
      challenge: { status: 'processing', token: 'lease.example-http' },
    });
    expect(await start(slug, 'another')).toBeNull();
  });

  test('concurrent starts share one statement; a challenge started twice at once is claimed once', async () => {
    const orders = await Promise.all(['p.example', 'q.example'].map((n) => acme.createOrder(anOrder([n]))));
    const authz = await Promise.all(orders.map((o) => acme.findAuthorization(ca.id, o?.authorizations[0] as string)));
    const [p, q] = authz.map((a) => a?.challenges[0].slug as string);
    const statements: string[] = [];
    const onQuery = (s: { sql: string }) => statements.push(s.sql);
    db.knex.on('query', onQuery);
    let claimed;
    try {
      claimed = await Promise.all([p, q, p].map((slug) => start(slug)));
    } finally {
      db.knex.off('query', onQuery);
    }
    expect(statements).toHaveLength(1);
    expect(claimed.map((c) => c?.identifier.value ?? null)).toEqual(['p.example', 'q.example', null]);
  });

  test('two authorizations validated one after the other: the order is ready once both are valid', async () => {
    const { order, claimed } = await startBoth(['first.example', 'second.example']);
    const at = new Date();
    const [one, two] = claimed;
    expect(await record(acme, one, { kind: 'valid', at })).toBe(true);
    expect((await acme.findOrder(ca.id, order.slug))?.status).toBe('pending');
    expect(await record(acme, two, { kind: 'valid', at })).toBe(true);
    expect((await acme.findOrder(ca.id, order.slug))?.status).toBe('ready');
    // Recorded again: nothing changes.
    expect(await record(acme, two, { kind: 'valid', at })).toBe(false);
    expect((await acme.findOrder(ca.id, order.slug))?.status).toBe('ready');
  });

  test('two authorizations recorded valid at the same moment, from two connections: every order ends ready', async () => {
    const second = isPostgresUrl(target.url) ? knexStore(openSecondPool(target.url, db.knex)) : null;
    const other = second ? (second as unknown as { acme: AcmeStore }).acme : acme;
    try {
      for (let i = 0; i < 8; i++) {
        const { order, claimed } = await startBoth([`a${i}.example`, `b${i}.example`]);
        const at = new Date();
        const recorded = await Promise.all([
          record(acme, claimed[0], { kind: 'valid', at }),
          record(other, claimed[1], { kind: 'valid', at }),
        ]);
        expect(recorded).toEqual([true, true]);
        expect((await acme.findOrder(ca.id, order.slug))?.status).toBe('ready');
      }
    } finally {
      await second?.close();
    }
  });

  test('an invalid authorization makes the order invalid with the error, and a later valid one does not revive it', async () => {
    const { order, claimed } = await startBoth(['bad.example', 'good.example']);
    const problem = { type: 'urn:ietf:params:acme:error:connection', detail: 'refused' };
    expect(await record(acme, claimed[0], { kind: 'invalid', problem })).toBe(true);
    expect(await record(acme, claimed[1], { kind: 'valid', at: new Date() })).toBe(true);
    const read = await acme.findOrder(ca.id, order.slug);
    expect(read).toMatchObject({ status: 'invalid', error: problem });
  });

  test('a second challenge of an authorization already valid fails: the authorization and its order stay as they are', async () => {
    const order = await acme.createOrder(anOrder(['twice.example']));
    const authz = await acme.findAuthorization(ca.id, order?.authorizations[0] as string);
    const [http, dns] = await Promise.all((authz?.challenges ?? []).map((c) => start(c.slug)));
    expect(await record(acme, http, { kind: 'valid', at: new Date() })).toBe(true);
    const problem = { type: 'urn:ietf:params:acme:error:dns', detail: 'no record' };
    expect(await record(acme, dns, { kind: 'invalid', problem })).toBe(true);
    const after = await acme.findAuthorization(ca.id, authz?.slug as string);
    expect(after?.status).toBe('valid');
    expect(after?.challenges.map((c) => c.status)).toEqual(['valid', 'invalid']);
    expect(await acme.findOrder(ca.id, order?.slug as string)).toMatchObject({ status: 'ready', error: null });
  });

  test('changes of concurrent callers share one statement: validations of four orders, then their finalizes', async () => {
    const started = await Promise.all(['g1', 'g2', 'g3', 'g4'].map((n) => startBoth([`${n}.example`])));
    const at = new Date();
    const recorded = await statementsOf(db, () =>
      Promise.all(started.map(({ claimed }) => record(acme, claimed[0], { kind: 'valid', at }))),
    );
    expect(recorded.value).toEqual([true, true, true, true]);
    expect(recorded.statements).toHaveLength(1);
    const finalized = await statementsOf(db, () => Promise.all(started.map(({ order }) => startIssuance(acme, order.id, 'r'))));
    expect(finalized.value).toEqual([true, true, true, true]);
    expect(finalized.statements).toHaveLength(1);
  });

  /** The job of `kind` for `reference`, as the table has it. */
  async function jobOf(kind: string, reference: number | undefined): Promise<Record<string, unknown>> {
    return (await db
      .knex(TABLES.jobs)
      .where({ kind, reference: String(reference) })
      .first()) as Record<string, unknown>;
  }

  test("startValidation writes the challenge's job in the same statement, leased to the starter", async () => {
    const order = await acme.createOrder(anOrder(['job.example']));
    const authz = await acme.findAuthorization(ca.id, order?.authorizations[0] as string);
    const { value: claimed, statements } = await statementsOf(db, () => start(authz?.challenges[0].slug as string, 'starter'));
    expect(statements).toHaveLength(1);
    const job = await jobOf('acme_validation', claimed?.challenge.id);
    expect(job).toMatchObject({ state: 'pending', attempts: 0, lease_owner: 'starter', last_error: null });
    expect(new Date(job.lease_until as string).getTime()).toBeGreaterThan(Date.now() + 50_000);
  });

  test('a retry keeps the challenge processing with its error; its job is pending again at run_at with its attempts, lease let go', async () => {
    const { claimed } = await startBoth(['later.example']);
    const problem = { type: 'urn:ietf:params:acme:error:dns', detail: 'no record yet' };
    const before = Date.now();
    expect(await record(acme, claimed[0], { kind: 'retry', problem, retry: { delayMs: 5000, attempts: 1 } })).toBe(true);
    const row = (await db.knex(TABLES.acmeChallenges).where({ id: claimed[0]?.challenge.id }).first()) as Record<string, unknown>;
    expect(row).toMatchObject({ status: 'processing', attempts: 1 });
    const job = await jobOf('acme_validation', claimed[0]?.challenge.id);
    expect(job).toMatchObject({ state: 'pending', attempts: 1, lease_owner: null, lease_until: null, last_error: 'no record yet' });
    const runAt = new Date(job.run_at as string).getTime();
    expect(runAt).toBeGreaterThanOrEqual(before + 4000);
    expect(runAt).toBeLessThanOrEqual(Date.now() + 6000);
    // Claimed only through the jobs: not before its run_at.
    expect(await jobs().claim(['acme_validation'], 'runner-b', 10, 60_000)).toEqual([]);
  });

  test('an outcome written by a runner that does not hold the job changes nothing', async () => {
    const { order, claimed } = await startBoth(['stolen.example']);
    expect(await record(acme, claimed[0], { kind: 'valid', at: new Date() }, 'not-the-holder')).toBe(false);
    expect((await acme.findOrder(ca.id, order.slug))?.status).toBe('pending');
    expect((await jobOf('acme_validation', claimed[0]?.challenge.id)).lease_owner).toBe('test-runner');
    expect(await record(acme, claimed[0], { kind: 'valid', at: new Date() })).toBe(true);
    expect((await acme.findOrder(ca.id, order.slug))?.status).toBe('ready');
    expect(await jobOf('acme_validation', claimed[0]?.challenge.id)).toMatchObject({ state: 'done', lease_owner: null });
  });

  test('startIssuance moves a ready order once; a second start, or one of an order not ready, is refused', async () => {
    const order = await readyOrder();
    expect(await startIssuance(acme, order.id, 'test-runner')).toBe(false);
    const pending = await acme.createOrder(anOrder(['not-ready.example']));
    expect(await startIssuance(acme, pending?.id as number, 'r')).toBe(false);
    const ready = await validatedOrder();
    const twice = await Promise.all([ready, ready].map((o) => startIssuance(acme, o.id, 'r')));
    expect(twice).toEqual([true, false]);
    expect((await acme.findOrder(ca.id, order.slug))?.request).toMatchObject({ profile: signRequest().profile });
  });

  async function validatedOrder() {
    const { order, claimed } = await startBoth([`issue-${Math.random().toString(36).slice(2, 8)}.example`]);
    await record(acme, claimed[0], { kind: 'valid', at: new Date() });
    return order;
  }

  async function readyOrder() {
    const order = await validatedOrder();
    expect(await startIssuance(acme, order.id, 'test-runner')).toBe(true);
    return order;
  }

  const jobs = () => (db.store as unknown as { jobs: JobStore }).jobs;

  test('jobs of a runner that died are claimed once their lease lapses; a failed issuance waits for its run_at', async () => {
    // A validation whose lease lapsed (its runner died), and one still leased to its runner.
    const { claimed } = await startBoth(['due.example', 'held.example']);
    await db
      .knex(TABLES.jobs)
      .where({ kind: 'acme_validation', reference: String(claimed[0]?.challenge.id) })
      .update({ lease_until: new Date(Date.now() - 1000) });
    const validations = await jobs().claim(['acme_validation'], 'runner-b', 10, 60_000);
    expect(validations.map((j) => j.reference)).toEqual([String(claimed[0]?.challenge.id)]);
    expect(await acme.findValidation(Number(validations[0].reference))).toMatchObject({
      thumbprint: 'thumb',
      identifier: { value: 'due.example' },
      challenge: { status: 'processing' },
    });
    expect(await jobs().claim(['acme_validation'], 'runner-c', 10, 60_000)).toEqual([]); // now runner-b's
    // The runner that died comes back: its outcome is not written; the new holder's is.
    expect(await record(acme, claimed[0], { kind: 'valid', at: new Date() })).toBe(false);
    expect(await record(acme, claimed[0], { kind: 'valid', at: new Date() }, 'runner-b')).toBe(true);

    // An issuance started by a runner that died: claimable once its lease lapses, with its attempts.
    const order = await readyOrder();
    expect(await jobs().claim(['acme_issuance'], 'runner-b', 10, 60_000)).toEqual([]);
    await db
      .knex(TABLES.jobs)
      .where({ kind: 'acme_issuance', reference: String(order.id) })
      .update({ lease_until: new Date(Date.now() - 1000) });
    const issuances = await jobs().claim(['acme_issuance'], 'runner-b', 10, 60_000);
    expect(issuances).toMatchObject([{ reference: String(order.id), attempts: 0 }]);
    expect(await acme.findIssuance(order.id)).toMatchObject({
      order: { id: order.id, status: 'processing' },
      request: { profile: signRequest().profile },
    });
    expect(await jobs().claim(['acme_issuance'], 'runner-c', 10, 60_000)).toEqual([]);

    // A failed attempt to retry later is nobody's until then, and then anybody's, one attempt more.
    const problem = { type: 'urn:ietf:params:acme:error:serverInternal', detail: 'key store away' };
    const issuance = (owner: string) => ({ kind: 'acme_issuance', reference: String(order.id), owner });
    expect(await acme.applyChange(onIssuanceFailed(order.id, problem, { delayMs: HOUR, attempts: 1 }, issuance('runner-b')))).toBe(true);
    expect(await jobs().claim(['acme_issuance'], 'runner-c', 10, 60_000)).toEqual([]);
    await db
      .knex(TABLES.jobs)
      .where({ kind: 'acme_issuance', reference: String(order.id) })
      .update({ run_at: new Date(Date.now() - 1000) });
    expect(await jobs().claim(['acme_issuance'], 'runner-c', 10, 60_000)).toMatchObject([{ reference: String(order.id), attempts: 1 }]);
    expect(await acme.applyChange(onIssuanceFailed(order.id, problem, null, issuance('runner-c')))).toBe(true);
    expect(await acme.findOrder(ca.id, order.slug)).toMatchObject({ status: 'invalid', error: problem });
    expect(await jobOf('acme_issuance', order.id)).toMatchObject({ state: 'done', lease_owner: null });
  });

  test('completeIssuance stores the certificate with the order valid and its event naming its requester, the account', async () => {
    const order = await readyOrder();
    const requester = { type: 'acme_account', id: accountId, protocol: 'acme' };
    const certificate = { ...newCertificate(ca.id, { serial: randomSerial() }), requester };
    const stored = await acme.completeIssuance(onIssued(order.id), certificate);
    expect(stored.serial).toBe(certificate.serial);
    // Its job ends in the same statement.
    expect(await jobOf('acme_issuance', order.id)).toMatchObject({ state: 'done', lease_owner: null });
    expect(await acme.findOrder(ca.id, order.slug)).toMatchObject({
      status: 'valid',
      certificateSerial: certificate.serial,
      request: null,
    });
    const download = await acme.findOrderCertificate(ca.id, order.slug);
    expect(download?.der?.equals(certificate.der)).toBe(true);
    const events = (await db.knex(TABLES.events).where({ serial: certificate.serial })) as { type: string; actor: unknown }[];
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe('certificate.issued');
    const actor = typeof events[0].actor === 'string' ? JSON.parse(events[0].actor) : events[0].actor;
    expect(actor).toEqual(requester);
  });

  test('certificates of two accounts stored by one statement: each event names its own requester', async () => {
    const first = await readyOrder();
    const other = await newAccount('other-thumb');
    const mine = accountId;
    accountId = other;
    const second = await readyOrder();
    accountId = mine;
    const certificates = [mine, other].map((id) => ({
      ...newCertificate(ca.id, { serial: randomSerial() }),
      requester: { type: 'acme_account', id, protocol: 'acme' },
    }));
    const statements: string[] = [];
    const onQuery = (q: { sql: string }) => statements.push(q.sql);
    db.knex.on('query', onQuery);
    try {
      await Promise.all([first, second].map((o, i) => acme.completeIssuance(onIssued(o.id), certificates[i])));
    } finally {
      db.knex.off('query', onQuery);
    }
    // One statement for both, their events in it (event-writer.ts `eventsInStatement`).
    expect(statements).toHaveLength(1);
    expect(statements.filter((sql) => /insert into "ca_api_events"/i.test(sql))).toHaveLength(1);
    const actors = await Promise.all(
      certificates.map(async (c) => {
        const [event] = (await db.knex(TABLES.events).where({ serial: c.serial })) as { actor: unknown }[];
        return typeof event.actor === 'string' ? JSON.parse(event.actor) : event.actor;
      }),
    );
    expect(actors.map((a: { id: number }) => a.id)).toEqual([mine, other]);
  });

  test('of two completions racing for one order, one stores its certificate; the other stores nothing', async () => {
    const order = await readyOrder();
    const second = isPostgresUrl(target.url) ? knexStore(openSecondPool(target.url, db.knex)) : null;
    const other = second ? (second as unknown as { acme: AcmeStore }).acme : acme;
    try {
      const results = await Promise.allSettled([
        acme.completeIssuance(onIssued(order.id), newCertificate(ca.id, { serial: randomSerial() })),
        other.completeIssuance(onIssued(order.id), newCertificate(ca.id, { serial: randomSerial() })),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(rejected.reason).toBeInstanceOf(StoreConflictError);
      expect(await count(TABLES.certificates)).toBe(1);
      expect(await db.knex(TABLES.events).where({ type: 'certificate.issued' })).toHaveLength(1);
    } finally {
      await second?.close();
    }
  });

  test('concurrent lookups share a statement, and each caller gets its own record (or null)', async () => {
    const orders = await Promise.all(['x.example', 'y.example', 'z.example'].map((n) => acme.createOrder(anOrder([n]))));
    const slugs = orders.map((o) => o?.slug as string);
    const statements: string[] = [];
    const onQuery = (q: { sql: string }) => statements.push(q.sql);
    db.knex.on('query', onQuery);
    let found;
    try {
      found = await Promise.all([...slugs, 'nosuchorder1'].map((slug) => acme.findOrder(ca.id, slug)));
    } finally {
      db.knex.off('query', onQuery);
    }
    expect(found.map((o) => o?.slug ?? null)).toEqual([...slugs, null]);
    expect(found.map((o) => o?.identifiers[0].value ?? null)).toEqual(['x.example', 'y.example', 'z.example', null]);
    expect(statements).toHaveLength(1);
    // Another CA's order is not found under this CA.
    const otherCa = await db.store.insertCa(newCa());
    expect(await acme.findOrder(otherCa.id, slugs[0])).toBeNull();
  });
});
