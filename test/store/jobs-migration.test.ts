/**
 * Migration 0033 (background jobs) moves the pending work of webhook delivery over: every enabled
 * endpoint behind the outbox, in back-off, or leased gets one `webhook_delivery` job (its back-off as
 * `run_at`, its attempts and last error), an endpoint with nothing to deliver and a disabled one get
 * none, and the expiry scan gets its one recurring job. Its `down` hands the live leases of the jobs
 * back to the endpoints. Then a delivery started after the upgrade delivers what was pending.
 */
import type { Knex } from 'knex';
import { envKekSecretBox } from '../../adapters/keys/secret-box';
import { MIGRATIONS_TABLE, migrationSource } from '../../adapters/store/knex/migrations';
import { createWebhookDelivery } from '../../lib';
import { TEST_KEK } from '../cli/helpers';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { Receiver } from '../webhooks/receiver';

const config = { migrationSource, tableName: MIGRATIONS_TABLE };
const env = { CA_KEY_ENCRYPTION_KEY: TEST_KEK };

/** Apply the migrations up to and including `last`. */
async function migrateThrough(knex: Knex, last: string): Promise<void> {
  for (;;) {
    const [done] = (await knex.migrate.list(config)) as [{ name: string }[] | string[], unknown];
    if (done.map((m) => (typeof m === 'string' ? m : m.name)).includes(last)) return;
    await knex.migrate.up(config);
  }
}

/** The name of the migration applied just before `name`. */
async function migrationBefore(name: string): Promise<string> {
  const names = (await migrationSource.getMigrations([])).map((m) => migrationSource.getMigrationName(m));
  return names[names.indexOf(name) - 1];
}

describe.each(testDatabaseTargets())('migration 0033 moves pending webhook work to jobs, on $name', (target) => {
  let db: TestDatabase;
  let receiver: Receiver;

  beforeAll(async () => {
    db = await openTestDatabase(target, { migrate: false });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await db?.close();
  });

  it('one job per endpoint with work, the expiry scan, and back again', async () => {
    const { knex } = db;
    await migrateThrough(knex, await migrationBefore('0033_jobs'));
    const box = envKekSecretBox(env)!;
    const secret = Buffer.alloc(24, 3);
    for (let i = 0; i < 3; i++) await db.store.createUser(`before${i}`, 'hash', []); // events 1..3
    const endpoint = (url: string, row: Record<string, unknown>) =>
      knex('ca_api_webhook_endpoints')
        .insert({ url, secret: JSON.stringify(box.seal(secret)), event_types: JSON.stringify(['user.created']), ...row })
        .returning('id')
        .then((rows: { id: number }[]) => rows[0].id);
    const later = new Date(Date.now() + 3_600_000);
    const behind = await endpoint(receiver.url, { position: 1 });
    const current = await endpoint(receiver.url, {});
    const disabled = await endpoint(receiver.url, { position: 0, enabled: false });
    const backingOff = await endpoint(`${receiver.url}backoff`, { position: 2, attempts: 2, next_attempt: later, last_error: 'HTTP 503' });
    const leased = await endpoint(`${receiver.url}leased`, {
      lease_owner: 'wh-1-old',
      lease_until: new Date(Date.now() + 60_000),
    });

    // Adding the endpoints wrote events (webhook.created): `current` and `leased` are past them all.
    await knex('ca_api_webhook_endpoints')
      .whereIn('id', [current, leased])
      .update({ position: knex.raw('(SELECT max(id) FROM ca_api_events)') });

    await knex.migrate.up(config); // 0033
    const jobs = (await knex('ca_api_jobs').orderBy('id')) as Record<string, unknown>[];
    expect(jobs.map((j) => [j.kind, j.reference, j.state, j.attempts, j.last_error])).toEqual([
      ['webhook_delivery', String(behind), 'pending', 0, null],
      ['webhook_delivery', String(backingOff), 'pending', 2, 'HTTP 503'],
      ['webhook_delivery', String(leased), 'pending', 0, null],
      ['expiry_scan', 'certificates', 'pending', 0, null],
    ]);
    expect(new Date(jobs[1].run_at as string).getTime()).toBe(later.getTime());
    expect(jobs.some((j) => j.reference === String(current) || j.reference === String(disabled))).toBe(false);

    // Down: a job's live lease goes back to its endpoint; the rows are otherwise as they were.
    await knex('ca_api_jobs')
      .where({ reference: String(behind) })
      .update({ lease_owner: 'jobs-2-new', lease_until: new Date(Date.now() + 60_000) });
    await knex('ca_api_webhook_endpoints').where({ id: leased }).update({ lease_owner: null, lease_until: null });
    await knex.migrate.down(config);
    expect(await knex.schema.hasTable('ca_api_jobs')).toBe(false);
    const rows = (await knex('ca_api_webhook_endpoints').orderBy('id')) as Record<string, unknown>[];
    expect(rows.map((r) => [r.id, r.lease_owner])).toEqual([
      [behind, 'jobs-2-new'],
      [current, null],
      [disabled, null],
      [backingOff, null],
      [leased, null],
    ]);

    // Up again, and delivery after the upgrade sends what was pending: events 2 and 3 to `behind`.
    await knex.migrate.latest(config);
    receiver.secret = `whsec_${secret.toString('base64')}`;
    const delivery = createWebhookDelivery({ store: db.store, env, pollMs: 10, expiringDays: 0, logError: () => undefined });
    try {
      const received = await receiver.waitFor(2);
      expect(received.map((r) => r.data.username)).toEqual(['before1', 'before2']);
    } finally {
      await delivery.close();
    }
  });
});
