/**
 * The job runner (lib/work/jobs-runner.ts) over the real store: each kind's handler runs its jobs and
 * the runner settles them — done, again after the interval, retried after the kind's back-off with
 * the attempt counted, failed past the kind's attempts (and pending again after `retryJob`), a handler
 * that throws is a failed attempt; a job it passes over is left to other runners; and when the store
 * is unreachable, the claims back off and the outage is logged once.
 */
import { hasJobStore, StoreUnavailableError, type JobRecord, type JobStore } from '../../lib/ports';
import { JobsRunner, type JobHandler, type JobOutcome } from '../../lib/work/jobs-runner';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';

const NO_JITTER = { baseMs: 60_000, maxMs: 600_000, jitter: 'none' as const };

function handler(kind: string, outcome: (job: JobRecord) => JobOutcome | Promise<JobOutcome>, extra: Partial<JobHandler> = {}): JobHandler {
  return { kind, leaseMs: 60_000, policy: NO_JITTER, handle: async (job) => outcome(job), ...extra };
}

describe.each(testDatabaseTargets())('the job runner on $name', (target) => {
  let db: TestDatabase;
  let jobs: JobStore;
  const runners: JobsRunner[] = [];
  const runner = (handlers: JobHandler[], logError: (m: string, e: unknown) => void = () => undefined) => {
    const r = new JobsRunner({ name: 'test jobs', jobs, handlers, intervalMs: 3_600_000, concurrency: 4, logError });
    runners.push(r);
    return r;
  };
  /** Run again now: the job made due (its wait is what the tests read first). */
  const due = (id: number) =>
    db
      .knex('ca_api_jobs')
      .where({ id })
      .update({ run_at: db.knex.raw('clock_timestamp()') });

  beforeAll(async () => {
    db = await openTestDatabase(target);
    if (!hasJobStore(db.store)) throw new Error('the knex store keeps jobs');
    jobs = db.store.jobs;
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.truncate();
  });
  afterEach(async () => {
    for (const r of runners.splice(0)) await r.close();
  });

  it('settles what each kind made of its job: done, again after the interval, and only kinds it has handlers for', async () => {
    const seen: string[] = [];
    const r = runner([
      handler('test_once', (job) => (seen.push(job.reference), { kind: 'done' })),
      handler('test_recurring', (job) => (seen.push(job.reference), { kind: 'again', afterMs: 120_000 })),
    ]);
    const once = await jobs.enqueue('test_once', 'one');
    const recurring = await jobs.enqueue('test_recurring', 'scan');
    const other = await jobs.enqueue('test_unhandled', 'x');
    await r.runNow();
    expect(seen.sort()).toEqual(['one', 'scan']);
    expect(await jobs.getJob(once.id)).toMatchObject({ state: 'done' });
    const next = (await jobs.getJob(recurring.id))!;
    expect(next).toMatchObject({ state: 'pending', attempts: 0 });
    expect(next.runAt.getTime() - next.updated.getTime()).toBeGreaterThanOrEqual(119_999);
    expect(await jobs.getJob(other.id)).toMatchObject({ state: 'pending', leaseOwner: null });
    await r.runNow();
    expect(seen).toHaveLength(2); // nothing due
  });

  it('runOnce reports how many jobs it ran; a job its handler settled itself is not written again', async () => {
    const r = runner([
      handler('test_self', async (job) => {
        // The handler's own statement ends the job (as a REST order's issue does), holding its lease.
        await db
          .knex('ca_api_jobs')
          .where({ id: job.id, lease_owner: r.owner })
          .update({ state: 'done', lease_owner: null, lease_until: null });
        return { kind: 'settled' };
      }),
    ]);
    const self = await jobs.enqueue('test_self', 'one');
    expect(await r.runOnce()).toBe(1);
    expect(await jobs.getJob(self.id)).toMatchObject({ state: 'done', attempts: 0, lastError: null });
    expect(await r.runOnce()).toBe(0);
  });

  it("claims each kind's jobs for that kind's lease", async () => {
    const leases = new Map<string, number>();
    const lease = async (job: JobRecord): Promise<JobOutcome> => {
      const held = (await jobs.getJob(job.id))!;
      leases.set(job.kind, held.leaseUntil!.getTime() - held.updated.getTime());
      return { kind: 'done' };
    };
    const r = runner([handler('test_short', lease, { leaseMs: 30_000 }), handler('test_long', lease, { leaseMs: 300_000 })]);
    await jobs.enqueue('test_short', 's');
    await jobs.enqueue('test_long', 'l');
    await r.runNow();
    expect(leases.get('test_short')).toBeGreaterThanOrEqual(29_999);
    expect(leases.get('test_short')).toBeLessThan(31_000);
    expect(leases.get('test_long')).toBeGreaterThanOrEqual(299_999);
  });

  it("retries with the kind's back-off, counting attempts; past the kind's attempts the job fails until retried", async () => {
    const errors: string[] = [];
    let calls = 0;
    const r = runner([
      handler(
        'test_failing',
        () => {
          calls++;
          if (calls === 2) throw new Error('the receiver broke');
          return { kind: 'retry', error: `HTTP 500 #${calls}` };
        },
        { maxAttempts: 3 },
      ),
    ]);
    const job = await jobs.enqueue('test_failing', 'r');
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 2; attempt++) {
      await r.runNow();
      const after = (await jobs.getJob(job.id))!;
      expect(after).toMatchObject({ state: 'pending', attempts: attempt });
      errors.push(after.lastError ?? '');
      waits.push(after.runAt.getTime() - after.updated.getTime());
      await due(job.id);
    }
    // 60 s after the first failure, 120 s after the second (baseMs · 2^(attempts−1), no jitter).
    expect(waits[0]).toBeGreaterThanOrEqual(59_999);
    expect(waits[0]).toBeLessThan(61_000);
    expect(waits[1]).toBeGreaterThanOrEqual(119_999);
    expect(waits[1]).toBeLessThan(121_000);
    expect(errors).toEqual(['HTTP 500 #1', 'the receiver broke']);
    await r.runNow();
    expect(await jobs.getJob(job.id)).toMatchObject({ state: 'failed', attempts: 3, lastError: 'HTTP 500 #3', leaseOwner: null });
    await r.runNow();
    expect(calls).toBe(3); // a failed job is not claimed
    expect(await jobs.retryJob(job.id)).toMatchObject({ state: 'pending', attempts: 0 });
    await r.runNow();
    expect(calls).toBe(4);
  });

  it('a job passed over is left to another runner, which takes it at once', async () => {
    const job = await jobs.enqueue('test_picky', 'p');
    const taken: string[] = [];
    const picky = runner([handler('test_picky', () => ({ kind: 'pass', forMs: 60_000 }))]);
    const other = runner([handler('test_picky', () => (taken.push('other'), { kind: 'done' }))]);
    await picky.runNow();
    expect(await jobs.getJob(job.id)).toMatchObject({ state: 'pending', attempts: 0, leaseOwner: null });
    await picky.runNow(); // passed over: not claimed again by it
    expect(await jobs.getJob(job.id)).toMatchObject({ state: 'pending', leaseOwner: null });
    await other.runNow();
    expect(taken).toEqual(['other']);
    expect(await jobs.getJob(job.id)).toMatchObject({ state: 'done' });
  });

  it('backs off while the store is unreachable and logs the outage once', async () => {
    let claims = 0;
    const unreachable: JobStore = {
      ...jobs,
      claim: async () => {
        claims++;
        throw new StoreUnavailableError('connect ECONNREFUSED', { connectionLost: true });
      },
    };
    const logged: string[] = [];
    const r = new JobsRunner({
      name: 'test jobs',
      jobs: unreachable,
      handlers: [handler('test_once', () => ({ kind: 'done' }))],
      intervalMs: 10,
      concurrency: 1,
      logError: (m) => logged.push(m),
    });
    runners.push(r);
    r.start();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // Polling every 10 ms would claim about 100 times; backing off from 100 ms, doubling: a handful.
    expect(claims).toBeGreaterThan(1);
    expect(claims).toBeLessThan(10);
    expect(logged).toEqual(['express-ca-api: test jobs: the database is unavailable; the work waits, retried with back-off']);
  });
});
