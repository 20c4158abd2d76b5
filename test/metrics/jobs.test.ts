/**
 * The `ca_api_jobs` gauge (docs/operations/metrics.md): background jobs by kind and state, read from
 * the store when scraped, on every test database — a new kind or state shows up, a finished one
 * moves from one series to another, and nothing is kept from the scrape before.
 */
import express from 'express';
import { knexStore } from '../../adapters/store/knex';
import { createMetricsRouter, type MetricsRouter } from '../../lib';
import { hasJobStore, type JobStore } from '../../lib/ports';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { scrape } from './scrape';

describe.each(testDatabaseTargets())('the jobs gauge ($name)', (target) => {
  let db: TestDatabase;
  let metrics: MetricsRouter;
  let app: express.Express;
  let jobs: JobStore;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    await db.truncate();
    if (!hasJobStore(db.store)) throw new Error('the knex store keeps jobs');
    jobs = db.store.jobs;
    metrics = createMetricsRouter({ store: knexStore(db.knex), eventPollMs: 0 });
    app = express().use(metrics);
  });
  afterAll(async () => {
    await metrics?.close();
    await db?.close();
  });

  test('counts the jobs of each kind in each state when scraped', async () => {
    expect((await scrape(app)).samples('ca_api_jobs')).toEqual([]);
    for (const endpoint of ['1', '2', '3']) await jobs.enqueue('webhook_delivery', endpoint);
    await jobs.enqueue('expiry_scan', 'certificates');
    const [first, second] = await jobs.claim(['webhook_delivery'], 'runner', 2, 60_000);
    await jobs.complete({ id: first.id, owner: 'runner' });
    const before = await scrape(app);
    expect(before.value('ca_api_jobs', { kind: 'webhook_delivery', state: 'pending' })).toBe(1);
    expect(before.value('ca_api_jobs', { kind: 'webhook_delivery', state: 'running' })).toBe(1);
    expect(before.value('ca_api_jobs', { kind: 'webhook_delivery', state: 'done' })).toBe(1);
    expect(before.value('ca_api_jobs', { kind: 'expiry_scan', state: 'pending' })).toBe(1);
    expect(before.samples('ca_api_jobs')).toHaveLength(4);

    await jobs.fail({ id: second.id, owner: 'runner' }, 'gave up', 5);
    const after = await scrape(app);
    expect(after.value('ca_api_jobs', { kind: 'webhook_delivery', state: 'failed' })).toBe(1);
    expect(after.samples('ca_api_jobs', { kind: 'webhook_delivery', state: 'running' })).toEqual([]); // not kept at its old value
    expect(after.text).toMatch(/^# TYPE ca_api_jobs gauge$/m);
  });
});
