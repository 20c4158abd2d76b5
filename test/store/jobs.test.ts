/**
 * The knex store's background jobs (lib/ports/jobs.ts, adapters/store/knex/jobs.ts): enqueueing is
 * idempotent per kind and reference; the one claim gives a job to one claimer only, passes over live
 * leases and takes lapsed ones; settling holds only while the lease does; a retry waits its delay on
 * the database's clock; jobs are listed and counted by kind and state, and a failed one is retried.
 * On every test database; on PostgreSQL the claimers also race from two connection pools, and a claim
 * beside another instance's uncommitted one passes over its jobs without waiting (SKIP LOCKED).
 */
import { knexStore } from '../../adapters/store/knex';
import { KnexJobStore } from '../../adapters/store/knex/jobs';
import { hasJobStore, type JobStore } from '../../lib/ports';
import { describeOnPostgres, openSecondPool, openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function jobsOf(store: object): JobStore {
  if (!hasJobStore(store)) throw new Error('the knex store keeps jobs');
  return store.jobs;
}

describe.each(testDatabaseTargets())('background jobs in the store, on $name', (target) => {
  let db: TestDatabase;
  let jobs: JobStore;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    jobs = jobsOf(db.store);
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.truncate();
  });

  it('enqueues once per kind and reference; a done job is made pending again, a failed one is left failed', async () => {
    const first = await jobs.enqueue('test_kind', 'a');
    expect(await jobs.enqueue('test_kind', 'a')).toMatchObject({ id: first.id, state: 'pending' });
    expect((await jobs.enqueue('other_kind', 'a')).id).not.toBe(first.id);
    const [claimed] = await jobs.claim(['test_kind'], 'one', 10, 60_000);
    expect(claimed).toMatchObject({ id: first.id, state: 'running', leaseOwner: 'one' });
    expect(await jobs.complete({ id: first.id, owner: 'one' })).toBe(true);
    expect(await jobs.getJob(first.id)).toMatchObject({ state: 'done', leaseOwner: null });
    expect(await jobs.enqueue('test_kind', 'a')).toMatchObject({ id: first.id, state: 'pending', attempts: 0 });

    const [again] = await jobs.claim(['test_kind'], 'one', 10, 60_000);
    expect(await jobs.fail({ id: again.id, owner: 'one' }, 'hopeless', 3)).toBe(true);
    expect(await jobs.enqueue('test_kind', 'a')).toMatchObject({ id: first.id, state: 'failed', attempts: 3, lastError: 'hopeless' });
  });

  it('gives each job to one claimer only, of the kinds asked for, and leaves out the ids excepted', async () => {
    for (let i = 0; i < 30; i++) await jobs.enqueue('test_kind', `r${i}`);
    await jobs.enqueue('unasked', 'x');
    // On PostgreSQL a second pool claims too (another instance); on PGlite the claims share its one connection.
    const second = target.name === 'postgresql' ? openSecondPool(target.url, db.knex) : null;
    try {
      const other = second ? jobsOf(knexStore(second)) : jobs;
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? other : jobs).claim(['test_kind'], `owner${i}`, 5, 60_000, i === 0 ? [1, 2] : [])),
      );
      const ids = claims.flat().map((j) => j.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(30);
      expect(claims.flat().every((j) => j.kind === 'test_kind')).toBe(true);
      expect(claims[0].map((j) => j.id)).not.toEqual(expect.arrayContaining([1]));
      expect(await jobs.claim(['test_kind'], 'late', 5, 60_000)).toEqual([]);
    } finally {
      await second?.destroy();
    }
  });

  it('reclaims a job whose lease lapsed; the runner that lost it settles nothing', async () => {
    const job = await jobs.enqueue('test_kind', 'lapsing');
    expect(await jobs.claim(['test_kind'], 'stalled', 1, 1)).toHaveLength(1);
    await sleep(20);
    const [taken] = await jobs.claim(['test_kind'], 'next', 1, 60_000);
    expect(taken).toMatchObject({ id: job.id, leaseOwner: 'next' });
    const lost = { id: job.id, owner: 'stalled' };
    expect(await jobs.complete(lost)).toBe(false);
    expect(await jobs.retryLater(lost, 0, 'late')).toBe(false);
    expect(await jobs.renew(lost, 60_000)).toBe(false);
    expect(await jobs.getJob(job.id)).toMatchObject({ state: 'running', leaseOwner: 'next', attempts: 0 });
    expect(await jobs.renew({ id: job.id, owner: 'next' }, 60_000)).toBe(true);
    expect(await jobs.release({ id: job.id, owner: 'next' })).toBe(true);
    expect(await jobs.claim(['test_kind'], 'third', 1, 60_000)).toHaveLength(1); // let go: due at once
  });

  it('a retry waits its delay on the database clock, counting the attempt; a recurring job comes back after its interval', async () => {
    const job = await jobs.enqueue('test_kind', 'failing');
    await jobs.claim(['test_kind'], 'me', 1, 60_000);
    expect(await jobs.retryLater({ id: job.id, owner: 'me' }, 90_000, 'HTTP 500')).toBe(true);
    const waiting = (await jobs.getJob(job.id))!;
    expect(waiting).toMatchObject({ state: 'pending', attempts: 1, lastError: 'HTTP 500', leaseOwner: null });
    const wait = waiting.runAt.getTime() - waiting.updated.getTime();
    expect(wait).toBeGreaterThanOrEqual(89_999);
    expect(wait).toBeLessThan(91_000);
    expect(await jobs.claim(['test_kind'], 'me', 1, 60_000)).toEqual([]); // not due

    const scan = await jobs.enqueue('test_recurring', 'all');
    await jobs.claim(['test_recurring'], 'me', 1, 60_000);
    expect(await jobs.reschedule({ id: scan.id, owner: 'me' }, 3_600_000)).toBe(true);
    const next = (await jobs.getJob(scan.id))!;
    expect(next).toMatchObject({ state: 'pending', attempts: 0 });
    expect(next.runAt.getTime() - next.updated.getTime()).toBeGreaterThanOrEqual(3_599_999);
  });

  it('lists and counts jobs by kind and state; retries a failed one, nothing else', async () => {
    const [a, b, c, d] = [
      await jobs.enqueue('k1', 'a'),
      await jobs.enqueue('k1', 'b'),
      await jobs.enqueue('k2', 'c'),
      await jobs.enqueue('k2', 'd'),
    ];
    const claimed = await jobs.claim(['k1', 'k2'], 'me', 3, 60_000);
    expect(claimed.map((j) => j.id)).toEqual([a.id, b.id, c.id]); // oldest due first
    await jobs.complete({ id: a.id, owner: 'me' });
    await jobs.fail({ id: b.id, owner: 'me' }, 'gave up', 5);
    expect(await jobs.countJobs()).toEqual([
      { kind: 'k1', state: 'done', count: 1 },
      { kind: 'k1', state: 'failed', count: 1 },
      { kind: 'k2', state: 'pending', count: 1 },
      { kind: 'k2', state: 'running', count: 1 },
    ]);
    expect((await jobs.listJobs({ state: 'running' })).map((j) => j.id)).toEqual([c.id]);
    expect((await jobs.listJobs({ kind: 'k2' })).map((j) => j.id)).toEqual([d.id, c.id]); // newest first
    expect((await jobs.listJobs({ limit: 1 })).map((j) => j.id)).toEqual([d.id]);

    for (const id of [a.id, c.id, d.id, 999]) expect(await jobs.retryJob(id)).toBeNull();
    expect(await jobs.retryJob(b.id)).toMatchObject({ id: b.id, state: 'pending', attempts: 0, lastError: 'gave up' });
    expect((await jobs.claim(['k1'], 'me', 5, 60_000)).map((j) => j.id)).toEqual([b.id]);
  });
});

// One connection (PGlite) never has a claim uncommitted beside another: PostgreSQL only.
describeOnPostgres('a claim beside an uncommitted one', (target) => {
  let db: TestDatabase;
  let jobs: JobStore;
  beforeAll(async () => {
    db = await openTestDatabase(target);
    await db.truncate();
    jobs = jobsOf(db.store);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('a claim that another instance has not yet committed holds its jobs: a claimer passes over them without waiting', async () => {
    for (let i = 0; i < 6; i++) await jobs.enqueue('test_kind', `r${i}`);
    const second = openSecondPool(target.url, db.knex);
    try {
      await second.transaction(async (trx) => {
        const held = await new KnexJobStore(trx).claim(['test_kind'], 'uncommitted', 3, 60_000);
        const meanwhile = await Promise.race([
          jobs.claim(['test_kind'], 'other', 6, 60_000),
          sleep(5000).then(() => 'waited for the other transaction'),
        ]);
        expect(typeof meanwhile === 'string' ? meanwhile : meanwhile.map((j) => j.reference).sort()).toEqual(['r3', 'r4', 'r5']);
        expect(held.map((j) => j.reference)).toEqual(['r0', 'r1', 'r2']);
      });
    } finally {
      await second.destroy();
    }
  });
});
