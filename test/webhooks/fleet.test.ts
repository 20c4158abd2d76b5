/**
 * Two instances on one PostgreSQL (docs/operations/webhooks.md): each delivers from its own connection pool,
 * both poll every 10 ms while events are written through both, and every receiver still gets each
 * event once, in commit order — the endpoint lease (`FOR UPDATE SKIP LOCKED`) lets one instance at a
 * time deliver to an endpoint (its background job's lease, one claim `FOR UPDATE SKIP LOCKED`). Both
 * run the expiry scan too: its one recurring job runs on one of them, and a certificate near its end
 * is announced once. PostgreSQL only: PGlite is one process's database.
 */
import { openDatabase } from '../../adapters/store/database';
import { envKekSecretBox } from '../../adapters/keys/secret-box';
import { knexStore } from '../../adapters/store/knex';
import { createWebhookDelivery, type WebhookDelivery } from '../../lib';
import { addWebhook } from '../../lib/webhooks/management';
import { hasEventLog, type Store } from '../../lib/ports';
import { TEST_KEK } from '../cli/helpers';
import { newCa, newCertificate } from '../store/records';
import { describeOnPostgres, openTestDatabase, type TestDatabase } from '../helpers/database';
import { Receiver } from './receiver';

const env = { CA_KEY_ENCRYPTION_KEY: TEST_KEK };
const EVENTS = 120;

describeOnPostgres('two instances on one PostgreSQL', (postgres) => {
  let db: TestDatabase;
  let second: Store;
  const deliveries: WebhookDelivery[] = [];
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    db = await openTestDatabase(postgres);
    const schema = ((await db.knex.raw('select current_schema() as s')) as { rows: { s: string }[] }).rows[0].s;
    second = knexStore(await openDatabase(postgres.url, { searchPath: schema }));
  });
  afterAll(async () => {
    for (const d of deliveries) await d.close();
    for (const r of receivers) await r.stop();
    await second?.close();
    await db?.close();
  });

  it('delivers each event once per endpoint, in order, with both instances polling', async () => {
    const box = envKekSecretBox(env)!;
    if (!hasEventLog(db.store)) throw new Error('the knex store keeps webhooks and events');
    for (let i = 0; i < 3; i++) {
      const receiver = await new Receiver().start();
      const { secret } = await addWebhook(db.store.webhooks, box, { url: receiver.url, eventTypes: ['user.created'] });
      receiver.secret = secret;
      receivers.push(receiver);
    }
    const ca = await db.store.insertCa(newCa());
    const expiring = await db.store.insertCertificate(newCertificate(ca.id, { notAfter: new Date(Date.now() + 5 * 86_400_000) }));
    const tuning = { pollMs: 10, concurrency: 2, expiringDays: 30, expiringScanMs: 3_600_000 };
    for (const store of [db.store, second]) {
      deliveries.push(createWebhookDelivery({ store, env, ...tuning, logError: () => undefined }));
    }
    // Written through both instances, ten at a time, while both deliver.
    for (let i = 0; i < EVENTS; i += 10) {
      await Promise.all(Array.from({ length: 10 }, (_, j) => (j % 2 ? second : db.store).createUser(`user${i + j}`, 'hash', [])));
    }
    for (const receiver of receivers) {
      await receiver.waitFor(EVENTS, 20_000);
      await new Promise((r) => setTimeout(r, 100)); // a double would come within a few polls
      const ids = receiver.received.map((r) => r.data.event_id);
      expect(ids).toHaveLength(EVENTS);
      expect(new Set(ids).size).toBe(EVENTS);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(receiver.rejected).toBe(0);
    }
    // The scan ran once for both (its job is due again in an hour) and announced the certificate once.
    const announced = (await db.store.eventsSince(0)).filter((e) => e.type === 'certificate.expiring');
    expect(announced.map((e) => e.serial)).toEqual([expiring.serial]);
    const scan = (await db.knex('ca_api_jobs').where({ kind: 'expiry_scan' })) as { state: string; run_at: Date; attempts: number }[];
    expect(scan).toHaveLength(1);
    expect(scan[0]).toMatchObject({ state: 'pending', attempts: 0 });
    expect(new Date(scan[0].run_at).getTime()).toBeGreaterThan(Date.now() + 3_000_000);
  });
});
