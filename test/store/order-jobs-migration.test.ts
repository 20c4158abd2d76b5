/**
 * Migration 0035 (REST orders as background jobs) moves today's pending orders over: every pending
 * order gets one `rest_order` job (reference: its id), an order whose lease is live keeps it on its
 * job (only its instance takes it until it lapses), a lapsed lease is not kept, and finished orders
 * get none. Its `down` hands the orders the live leases of their jobs and removes the jobs. After the
 * upgrade the order runner finishes the moved orders, each once, through their jobs.
 */
import type { Knex } from 'knex';
import { MIGRATIONS_TABLE, migrationSource } from '../../adapters/store/knex/migrations';
import { inProcessOrderRunner } from '../../lib/ca/order-runner/in-process';
import { hasJobStore, JOB_KINDS } from '../../lib/ports';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa, signRequest } from './records';

const config = { migrationSource, tableName: MIGRATIONS_TABLE };
const MIGRATION = '0035_order_jobs';

/** The names of the migrations in order. */
async function migrationNames(): Promise<string[]> {
  return (await migrationSource.getMigrations([])).map((m) => migrationSource.getMigrationName(m));
}

/** Apply the migrations up to and including `last`. */
async function migrateThrough(knex: Knex, last: string): Promise<void> {
  for (;;) {
    const [done] = (await knex.migrate.list(config)) as [{ name: string }[] | string[], unknown];
    if (done.map((m) => (typeof m === 'string' ? m : m.name)).includes(last)) return;
    await knex.migrate.up(config);
  }
}

describe.each(testDatabaseTargets())('migration 0035 moves pending REST orders to rest_order jobs, on $name', (target) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(target, { migrate: false });
  });
  afterAll(async () => {
    await db?.close();
  });

  it('one job per pending order, live leases kept; down hands them back; the runner finishes them after the upgrade', async () => {
    const { knex } = db;
    const names = await migrationNames();
    await migrateThrough(knex, names[names.indexOf(MIGRATION) - 1]);
    const ca = await db.store.insertCa(newCa());
    const user = await db.store.createUser('alice', 'hash', []);
    // Orders as today's main writes them: pending ones carrying their runner's lease on the row.
    const order = async (slug: string, row: Record<string, unknown>) =>
      (
        (await knex('ca_api_orders')
          .insert({
            slug,
            created: new Date(),
            updated: new Date(),
            ca_id: ca.id,
            user_id: user.id,
            request: JSON.stringify(signRequest()),
            status: 'pending',
            ...row,
          })
          .returning('id')) as { id: number }[]
      )[0].id;
    const soon = new Date(Date.now() + 60_000);
    const leased = await order('leased', { lease_owner: 'in-process:a', lease_expires: soon });
    const lapsed = await order('lapsed', { lease_owner: 'in-process:gone', lease_expires: new Date(Date.now() - 60_000) });
    const free = await order('free', {});
    await order('failed', { status: 'failed', error: 'no', error_code: 1 });

    await knex.migrate.up(config); // 0035
    const jobs = (await knex('ca_api_jobs').where({ kind: 'rest_order' }).orderBy('id')) as Record<string, unknown>[];
    expect(jobs.map((j) => [j.reference, j.state, j.attempts, j.lease_owner])).toEqual([
      [String(leased), 'pending', 0, 'in-process:a'],
      [String(lapsed), 'pending', 0, null],
      [String(free), 'pending', 0, null],
    ]);
    expect(new Date(jobs[0].lease_until as string).getTime()).toBe(soon.getTime());
    expect(await db.store.getOrder('leased')).toMatchObject({ status: 'pending', leaseOwner: 'in-process:a', leaseExpires: soon });

    // Down: a job's live lease goes back to its order, the jobs go.
    await knex('ca_api_jobs')
      .where({ kind: 'rest_order', reference: String(free) })
      .update({ lease_owner: 'in-process:b', lease_until: soon });
    await knex('ca_api_orders').where({ id: leased }).update({ lease_owner: null, lease_expires: null });
    await knex.migrate.down(config);
    expect(await knex('ca_api_jobs').where({ kind: 'rest_order' })).toEqual([]);
    const rows = (await knex('ca_api_orders').orderBy('id')) as Record<string, unknown>[];
    expect(rows.map((r) => [r.slug, r.lease_owner])).toEqual([
      ['leased', 'in-process:a'],
      ['lapsed', 'in-process:gone'], // as it was: a lapsed lease is nobody's
      ['free', 'in-process:b'],
      ['failed', null],
    ]);

    // Up again; a runner of another instance finishes the free orders at once, through their jobs
    // (their requests hold no CSR that parses: each fails with its reason, once), and leaves the
    // order leased to another instance alone.
    await knex.migrate.latest(config);
    await knex('ca_api_jobs')
      .where({ kind: 'rest_order', reference: String(free) })
      .update({ lease_owner: null, lease_until: null });
    const settled: string[] = [];
    const runner = inProcessOrderRunner({ store: db.store, keyBackends: {}, logError: () => undefined });
    runner.onOrderSettled((o) => settled.push(`${o.slug} ${o.status}`));
    expect(await runner.drain()).toBe(2);
    expect(settled.sort()).toEqual(['free failed', 'lapsed failed']);
    expect((await db.store.getOrder('lapsed'))?.error).toBeTruthy();
    expect(await db.store.getOrder('leased')).toMatchObject({ status: 'pending', leaseOwner: 'in-process:a' });
    if (!hasJobStore(db.store)) throw new Error('the knex store has jobs');
    const after = await db.store.jobs.listJobs({ kind: JOB_KINDS.restOrder });
    expect(after.map((j) => [j.reference, j.state]).sort()).toEqual(
      [
        [String(leased), 'running'],
        [String(lapsed), 'done'],
        [String(free), 'done'],
      ].sort(),
    );
  });
});
