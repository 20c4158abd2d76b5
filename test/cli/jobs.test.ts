/**
 * `ca-admin list_jobs [--kind K] [--state S] [--limit N]` and `ca-admin retry_job <id>`
 * (docs/reference/cli.md): the background jobs newest first, one line each, filtered; a failed job
 * made pending again, and a clear refusal for one that is not failed or does not exist. Bad flags are
 * one line on stderr. On every test database target.
 */
import { hasJobStore, type JobStore } from '../../lib/ports';
import { testDatabaseTargets } from '../helpers/database';
import { newCa, signRequest } from '../store/records';
import { cliFixture } from './helpers';

const utc = (d: Date) => d.toISOString().replace('.000Z', 'Z');

describe.each(testDatabaseTargets())('list_jobs and retry_job on $name', (target) => {
  const f = cliFixture(target, 'jobs-');
  let jobs: JobStore;

  beforeAll(async () => {
    if (!hasJobStore(f.db.store)) throw new Error('the knex store keeps jobs');
    jobs = f.db.store.jobs;
    await f.db.truncate();
  });

  it('lists jobs by kind and state, and retries a failed one', async () => {
    expect((await f.cli(['list_jobs'])).stdout).toBe('No jobs.\n');
    const delivery = await jobs.enqueue('webhook_delivery', '7');
    const scan = await jobs.enqueue('expiry_scan', 'certificates');
    await jobs.claim(['webhook_delivery'], 'runner', 1, 60_000);
    await jobs.fail({ id: delivery.id, owner: 'runner' }, 'gave up:\n  HTTP 500', 4);
    const failed = (await jobs.getJob(delivery.id))!;

    const all = await f.cli(['list_jobs']);
    expect(all).toMatchObject({ code: 0, stderr: '' });
    expect(all.stdout).toBe(
      `${scan.id} - expiry_scan certificates - pending - run at ${utc(scan.runAt)} - 0 attempts\n` +
        `${delivery.id} - webhook_delivery 7 - failed - run at ${utc(failed.runAt)} - 4 attempts - last error: gave up: HTTP 500\n`,
    );
    expect((await f.cli(['list_jobs', '--state', 'failed'])).stdout.split('\n')[0]).toMatch(
      new RegExp(`^${delivery.id} - webhook_delivery 7 `),
    );
    expect((await f.cli(['list_jobs', '--kind', 'expiry_scan'])).stdout).toMatch(new RegExp(`^${scan.id} - expiry_scan `));
    expect((await f.cli(['list_jobs', '--state', 'running'])).stdout).toBe('No jobs.\n');
    expect((await f.cli(['list_jobs', '--limit', '1'])).stdout.trim().split('\n')).toHaveLength(1);

    expect(await f.cli(['retry_job', String(delivery.id)])).toMatchObject({
      code: 0,
      stdout: `Retried job ${delivery.id} (webhook_delivery 7): pending.\n`,
    });
    expect(await jobs.getJob(delivery.id)).toMatchObject({ state: 'pending', attempts: 0 });
    const claimed = await jobs.claim(['webhook_delivery'], 'runner', 1, 60_000);
    expect(claimed.map((j) => j.id)).toEqual([delivery.id]);
  });

  it("lists REST orders' rest_order jobs: pending with the order, done with it, pending again when ca-admin retries the order", async () => {
    await f.db.truncate();
    const ca = await f.db.store.insertCa(newCa());
    const user = await f.db.store.createUser('alice', 'h', []);
    const order = await f.db.store.createOrder({ caId: ca.id, userId: user.id, request: signRequest() });
    const listed = await f.cli(['list_jobs', '--kind', 'rest_order']);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.stdout).toMatch(new RegExp(`^\\d+ - rest_order ${order.id} - pending - run at \\S+ - 0 attempts\n$`));
    await f.db.store.markOrderFailed(order.id, 'no');
    expect((await f.cli(['list_jobs', '--kind', 'rest_order', '--state', 'done'])).stdout).toMatch(
      new RegExp(`^\\d+ - rest_order ${order.id} - done `),
    );
    expect(await f.cli(['retry_orders', ca.name, order.slug])).toMatchObject({ code: 0 });
    expect((await f.cli(['list_jobs', '--kind', 'rest_order', '--state', 'pending'])).stdout).toMatch(
      new RegExp(`^\\d+ - rest_order ${order.id} - pending `),
    );
  });

  it('lists ACME validations and issuances by kind: a running one with its lease, a retried one with its attempts and error', async () => {
    const validation = await jobs.enqueue('acme_validation', '41');
    await jobs.claim(['acme_validation'], 'acme-1-abc', 1, 60_000);
    const issuance = await jobs.enqueue('acme_issuance', '17');
    await jobs.claim(['acme_issuance'], 'acme-1-abc', 1, 60_000);
    await jobs.retryLater({ id: issuance.id, owner: 'acme-1-abc' }, 60_000, 'The certificate could not be issued.', 1);
    const retried = (await jobs.getJob(issuance.id))!;
    const listed = await f.cli(['list_jobs', '--kind', 'acme_validation']);
    expect(listed).toMatchObject({
      code: 0,
      stdout: `${validation.id} - acme_validation 41 - running - run at ${utc(validation.runAt)} - 0 attempts\n`,
    });
    expect((await f.cli(['list_jobs', '--kind', 'acme_issuance'])).stdout).toBe(
      `${issuance.id} - acme_issuance 17 - pending - run at ${utc(retried.runAt)} - 1 attempt - last error: The certificate could not be issued.\n`,
    );
    expect((await f.cli(['list_jobs', '--kind', "a'b"])).stderr).toMatch(/acme_validation, acme_issuance, acme_expiry/);
  });

  it('refuses what it cannot do, in one line', async () => {
    const scan = await jobs.enqueue('expiry_scan', 'certificates');
    const notFailed = await f.cli(['retry_job', String(scan.id)]);
    expect(notFailed.code).not.toBe(0);
    expect(notFailed.stderr).toMatch(new RegExp(`Job ${scan.id} is (pending|running), not failed: left as it is\\.`));
    const missing = await f.cli(['retry_job', '999999']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/999999: Job not found\./);
    expect((await f.cli(['retry_job', 'x1'])).stderr).toMatch(/job x1: not a whole number from 1\./);
    expect((await f.cli(['list_jobs', '--state', 'stuck'])).stderr).toMatch(/--state.*stuck.*pending, running, done, failed/s);
    expect((await f.cli(['list_jobs', '--limit', '0'])).stderr).toMatch(/--limit 0: not a whole number from 1\./);
    expect((await f.cli(['list_jobs', '--kind', "a'b"])).stderr).toMatch(/--kind a'b: not a job kind/);
  });
});
