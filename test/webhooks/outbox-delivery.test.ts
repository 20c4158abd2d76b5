/**
 * Webhook delivery over the real store (`createWebhookDelivery`, lib/webhooks/delivery.ts): back-off
 * and the dead letter, replay, secret rotation, the events webhooks added (expiring certificates
 * announced once for the fleet, CRLs published, ACME accounts, webhook changes), closing with a
 * request out to a receiver that never answers, and the options' errors.
 */
import { randomBytes } from 'crypto';
import { envKekSecretBox } from '../../adapters/keys/secret-box';
import { createCaApiRouter, createWebhookDelivery, OptionsError, type WebhookDelivery, type WebhookDeliveryTuning } from '../../lib';
import { addWebhook, replayWebhook, rotateWebhookSecret } from '../../lib/webhooks/management';
import {
  actingAs,
  hasAcmeStore,
  hasEventLog,
  type Actor,
  type EventLog,
  type SecretBox,
  type Store,
  type WebhookStore,
} from '../../lib/ports';
import { cliRunner, TEST_KEK } from '../cli/helpers';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa, newCertificate } from '../store/records';
import { Receiver, silentServer, sleep } from './receiver';

const OPERATOR: Actor = { type: 'operator', name: 'root', protocol: 'cli' };
const DAY = 86_400_000;
const env = { CA_KEY_ENCRYPTION_KEY: TEST_KEK };
const FAST: WebhookDeliveryTuning = { pollMs: 10, timeoutMs: 2000, backoffBaseMs: 20, backoffMaxMs: 40, expiringDays: 0 };

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`not reached: ${JSON.stringify(value)}`);
    await sleep(15);
  }
}

describe.each(testDatabaseTargets())('webhook delivery over the store, on $name', (target) => {
  let db: TestDatabase;
  let store: Store & EventLog;
  let hooks: WebhookStore;
  let box: SecretBox;
  let receiver: Receiver;
  const open: WebhookDelivery[] = [];

  const deliver = (tuning: WebhookDeliveryTuning = {}) => {
    const d = createWebhookDelivery({ store, env, logError: () => undefined, ...FAST, ...tuning });
    open.push(d);
    return d;
  };

  beforeAll(async () => {
    db = await openTestDatabase(target);
    if (!hasEventLog(db.store)) throw new Error('the knex store has these capabilities');
    store = db.store;
    hooks = actingAs(db.store, OPERATOR).webhooks;
    box = envKekSecretBox(env)!;
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.truncate();
    receiver = await new Receiver().start();
  });
  afterEach(async () => {
    for (const d of open.splice(0)) await d.close();
    await receiver.stop();
  });

  it('retries with back-off, dead-letters at the limit and moves on; a replay sends again in order', async () => {
    const { endpoint, secret } = await addWebhook(hooks, box, { url: receiver.url, eventTypes: ['user.created'] });
    receiver.secret = secret;
    receiver.failWith = 500;
    const d = deliver({ maxAttempts: 3 });
    await store.createUser('first', 'hash', []);
    const dead = await until(
      () => hooks.listWebhookDeadLetters(endpoint.id),
      (rows) => rows.length === 1,
    );
    expect(dead[0]).toMatchObject({ eventType: 'user.created', attempts: 3, lastError: 'HTTP 500' });
    expect(receiver.requests).toBe(3);

    receiver.failWith = null;
    await store.createUser('second', 'hash', []);
    await receiver.waitFor(1);
    expect(receiver.received.map((r) => r.data.username)).toEqual(['second']);
    // A replay ends the deliverer's lease (adapters/store/knex/webhooks.ts): one made while the turn that
    // sent "second" has not yet recorded it would leave that delivery uncounted. Wait for the count.
    await until(
      () => hooks.getWebhookEndpoint(endpoint.id),
      (e) => (e?.delivered ?? 0) >= 1,
    );

    await replayWebhook(hooks, endpoint.id, dead[0].eventId);
    await d.deliverNow();
    await receiver.waitFor(3);
    expect(receiver.received.map((r) => r.data.username)).toEqual(['second', 'first', 'second']);
    // The same event keeps its webhook-id, so that a receiver can drop what it already has.
    expect(receiver.received[2].id).toBe(receiver.received[0].id);
    // The receiver has the request before the deliverer has its answer and counts it: wait for the count.
    const counted = await until(
      () => hooks.getWebhookEndpoint(endpoint.id),
      (e) => (e?.delivered ?? 0) >= 3,
    );
    expect(counted?.delivered).toBe(3);
  });

  it('an endpoint that wants some types reads only those from the store, and still moves past the others', async () => {
    const { endpoint, secret } = await addWebhook(hooks, box, { url: receiver.url, eventTypes: ['ca.created'] });
    receiver.secret = secret;
    for (let i = 0; i < 250; i++) await store.createUser(`user${i}`, 'hash', []); // more than two pages of them
    await store.insertCa(newCa({ name: 'Wanted' }));
    const handedOver: string[] = [];
    const counting = new Proxy(store, {
      get(target, name) {
        const value = Reflect.get(target, name, target) as unknown;
        if (name !== 'eventsSince' && name !== 'eventsOfTypesSince') return typeof value === 'function' ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          const read = await (value as (...a: unknown[]) => Promise<{ events?: { type: string }[] } | { type: string }[]>).apply(
            target,
            args,
          );
          handedOver.push(...(Array.isArray(read) ? read : read.events!).map((e) => e.type));
          return read;
        };
      },
    });
    const d = createWebhookDelivery({ store: counting, env, logError: () => undefined, ...FAST });
    open.push(d);
    const [created] = await receiver.waitFor(1);
    expect(created.data).toMatchObject({ name: 'Wanted' });
    const latest = await store.latestEventId();
    await until(
      () => hooks.getWebhookEndpoint(endpoint.id),
      (e) => e?.position === latest,
    );
    expect(handedOver).toEqual(['ca.created']);
    expect(receiver.requests).toBe(1);
  });

  it('a rotated secret signs from the next turn on; webhook changes are events without the secret', async () => {
    const { endpoint, secret } = await addWebhook(hooks, box, { url: receiver.url });
    receiver.secret = secret;
    const rotated = await rotateWebhookSecret(hooks, box, endpoint.id);
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    deliver();
    // Signed with the new secret: the receiver, still holding the old one, refuses (and is asked again).
    await until(
      async () => receiver.rejected,
      (n) => n > 1,
    );
    expect(receiver.received).toEqual([]);
    receiver.secret = rotated;
    const received = await receiver.waitFor(2);
    expect(received.map((r) => r.type)).toEqual(['webhook.created', 'webhook.secret_rotated']);
    expect(received[1].data).toMatchObject({ webhook: endpoint.id, actor: OPERATOR });

    const events = await store.eventsSince(0);
    expect(events.map((e) => e.type)).toEqual(['webhook.created', 'webhook.secret_rotated']);
    for (const s of [secret, rotated]) expect(JSON.stringify(events)).not.toContain(s.slice('whsec_'.length));
    expect(await hooks.removeWebhookEndpoint(endpoint.id)).toBe(true);
    expect((await store.eventsSince(events[1].id)).map((e) => e.type)).toEqual(['webhook.removed']);
  });

  it("a secret this server's key does not open leaves the endpoint's schedule alone: a server that has the key delivers at once", async () => {
    // A server still on the old key after `ca-admin rotate_kek` re-sealed the secrets under a new one.
    const newEnv = { CA_KEY_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64') };
    const { endpoint, secret } = await addWebhook(hooks, envKekSecretBox(newEnv)!, { url: receiver.url });
    receiver.secret = secret;
    deliver({ backoffMaxMs: 3_600_000 }); // the stale server, still running below
    const waiting = await until(
      () => hooks.getWebhookEndpoint(endpoint.id),
      (e) => e?.lastError !== null && e?.lastError !== undefined,
    );
    expect(waiting?.lastError).toMatch(/cannot be opened with this server's key-encryption key \(after ca-admin rotate_kek, restart/);
    // Its own key's fault, not the receiver's: no attempt counted, no back-off.
    expect(waiting).toMatchObject({ attempts: 0, nextAttempt: null });
    expect(receiver.requests).toBe(0);

    // While the stale server still runs, one that has the new key signs and sends at once.
    const d = createWebhookDelivery({ store, env: newEnv, logError: () => undefined, ...FAST });
    open.push(d);
    const [created] = await receiver.waitFor(1, 3000);
    expect(created.type).toBe('webhook.created');
    // Received before the deliverer has the answer and records it: wait for the error to be cleared.
    const recovered = await until(
      () => hooks.getWebhookEndpoint(endpoint.id),
      (e) => e?.delivered === 1,
    );
    expect(recovered?.lastError).toBeNull();
  });

  it('after ca-admin rotate_kek the old server never attempts kek.rotated (not wanted), and the next wanted event goes out at once', async () => {
    const NEW_KEK = randomBytes(32).toString('base64');
    const { endpoint, secret } = await addWebhook(hooks, box, { url: receiver.url, eventTypes: ['user.created'] });
    receiver.secret = secret;
    const rotated = await cliRunner(store, { NEW_KEK })(['rotate_kek', '--new-key-env', 'NEW_KEK']);
    expect(rotated.code).toBe(0);
    // The old server, still running on the old key, polls after the rotation (a long back-off would show).
    const stale = deliver({ backoffMaxMs: 3_600_000 });
    const latest = await store.latestEventId();
    expect((await store.eventsSince(0)).map((e) => e.type)).toContain('kek.rotated');
    // The old server passes over the event the endpoint does not want: the position moves, nothing is scheduled.
    const passed = await until(
      () => hooks.getWebhookEndpoint(endpoint.id),
      (e) => e?.position === latest,
    );
    expect(passed).toMatchObject({ attempts: 0, nextAttempt: null, lastError: null });
    expect(receiver.requests).toBe(0);

    // Restarted with the new key: the next certificate-or-user event is not held up by anything.
    await stale.close();
    open.splice(open.indexOf(stale), 1);
    const d = createWebhookDelivery({ store, env: { CA_KEY_ENCRYPTION_KEY: NEW_KEK }, logError: () => undefined, ...FAST });
    open.push(d);
    const sent = Date.now();
    await store.createUser('after-rotation', 'hash', []);
    const [received] = await receiver.waitFor(1, 3000);
    expect(received.data).toMatchObject({ username: 'after-rotation' });
    expect(Date.now() - sent).toBeLessThan(3000);
  });

  it('announces each certificate near its end once, whichever instance looks, and none other', async () => {
    const ca = await store.insertCa(newCa());
    const soon = await store.insertCertificate(newCertificate(ca.id, { notAfter: new Date(Date.now() + 5 * DAY) }));
    await store.insertCertificate(newCertificate(ca.id, { notAfter: new Date(Date.now() + 60 * DAY) }));
    await store.insertCertificate(
      newCertificate(ca.id, { notBefore: new Date(Date.now() - 9 * DAY), notAfter: new Date(Date.now() - DAY) }),
    );
    await store.insertCertificate(
      newCertificate(ca.id, {
        notAfter: new Date(Date.now() + 5 * DAY),
        revoked: true,
        revokedDate: new Date(),
        revokedReason: 'unspecified',
      }),
    );
    const after = await store.latestEventId();
    const settings = { expiringDays: 30, expiringScanMs: 3_600_000 };
    const [a, b] = [deliver(settings), deliver(settings)];
    // Both instances' scan loops (started with them) and three calls at once: one announcement.
    const counts = await Promise.all([a.announceExpiring(), b.announceExpiring(), a.announceExpiring()]);
    expect(counts.reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(1);
    expect(await b.announceExpiring()).toBe(0);
    const expiring = async () => (await store.eventsSince(after)).filter((e) => e.type === 'certificate.expiring');
    await until(expiring, (events) => events.length > 0); // a scan loop's may still be committing
    await new Promise((r) => setTimeout(r, 200)); // room for a second announcement, were there one
    const events = await expiring();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ caSerial: ca.serial, serial: soon.serial, data: { cn: soon.cn } });
  });

  it('leaves the automatic OCSP responder certificates out of the expiry notices unless asked for', async () => {
    // A real CA and its delegated responder (3 days, renewed by itself, autogenerated), as ca-admin makes them.
    const cli = cliRunner(store);
    expect(
      (await cli(['init_ca', '--key-type', 'EC', '--no-default-hostname', '--expires', '365', 'Expiring', 'CN=Expiring Root'])).stderr,
    ).toBe('');
    expect((await cli(['generate_ocsp_keys', 'Expiring'])).stderr).toBe('');
    const ca = (await store.findCaByName('Expiring'))!;
    const responder = (await store.listCertificates({ caId: ca.id, includeAutogenerated: true })).find((c) => c.autogenerated)!;
    expect(responder.notAfter.getTime() - Date.now()).toBeLessThan(30 * DAY);
    const normal = await store.insertCertificate(newCertificate(ca.id, { notAfter: new Date(Date.now() + 5 * DAY) }));
    const announced = async (after: number) =>
      (await store.eventsSince(after)).filter((e) => e.type === 'certificate.expiring').map((e) => e.serial);

    // Each delivery also scans once as it starts: whichever scan holds the fleet's lock announces, so
    // scan until the notices are there, then once more to see that nothing else comes.
    const scanned = async (tuning: WebhookDeliveryTuning, after: number) => {
      const d = deliver({ expiringDays: 30, ...tuning });
      await until(
        async () => (await d.announceExpiring(), announced(after)),
        (serials) => serials.length > 0,
      );
      await d.announceExpiring();
      return announced(after);
    };
    expect(await scanned({}, await store.latestEventId())).toEqual([normal.serial]);
    // Asked for: the responder too (the normal one was announced already: once per certificate).
    expect(await scanned({ expiringIncludeAutogenerated: true }, await store.latestEventId())).toEqual([responder.serial]);
  });

  it('records CRLs published and ACME accounts created as events', async () => {
    const ca = await store.insertCa(newCa());
    if (!hasAcmeStore(store)) throw new Error('the knex store has these capabilities');
    const after = await store.latestEventId();
    await store.nextCrlNumber(ca.id, 'user');
    await store.nextCrlNumber(ca.id, 'user');
    const { account } = await store.acme.createAccount({
      caId: ca.id,
      jwk: { kty: 'EC' },
      thumbprint: 't'.repeat(43),
      contact: [],
      termsOfServiceAgreed: true,
    });
    const events = await store.eventsSince(after);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['crl.published', { scope: 'user', crl_number: '1' }],
      ['crl.published', { scope: 'user', crl_number: '2' }],
      ['acme.account.created', { account: account.slug, eab_kid: null }],
    ]);
    expect(events[2]).toMatchObject({ caSerial: ca.serial, actor: { type: 'acme_account', id: account.id, protocol: 'acme' } });
  });

  it('a receiver that never answers holds up neither other endpoints nor close(), and is not counted as failing', async () => {
    const silent = await silentServer();
    try {
      const { endpoint } = await addWebhook(hooks, box, { url: silent.url });
      const other = await addWebhook(hooks, box, { url: receiver.url });
      receiver.secret = other.secret;
      const d = deliver({ timeoutMs: 30_000 });
      await store.createUser('someone', 'hash', []);
      await until(
        async () => silent.connections(),
        (n) => n > 0,
      );
      // While a request to the silent receiver is out, the other endpoint still gets what comes next.
      await receiver.waitFor(2);
      await store.createUser('someone else', 'hash', []);
      await receiver.waitFor(3, 10_000); // well within the silent request's 30 s
      expect(receiver.received.map((r) => r.type)).toEqual(['webhook.created', 'user.created', 'user.created']);

      const started = Date.now();
      await d.close();
      expect(Date.now() - started).toBeLessThan(10_000); // cut short, not waited for (30 s)
      expect(await hooks.getWebhookEndpoint(endpoint.id)).toMatchObject({ attempts: 0, delivered: 0, lastError: null });
    } finally {
      await silent.close();
    }
  });
});

describe('webhook options', () => {
  it('are checked when delivery is constructed', () => {
    const store = {
      webhooks: { recordWebhookOutcome: () => undefined },
      jobs: { claim: () => undefined },
      eventsSince: () => undefined,
      latestEventId: () => undefined,
    };
    expect(() => createWebhookDelivery({} as never)).toThrow(/createWebhookDelivery: option `store` must be a store with the webhook/);
    expect(() => createWebhookDelivery({ store: store as never, env, pollMs: 1 })).toThrow(
      /createWebhookDelivery: option `pollMs` must be an integer from 10 to 3600000 \(got 1\)/,
    );
    expect(() => createWebhookDelivery({ store: store as never, env, backoffBaseMs: 500, backoffMaxMs: 100 })).toThrow(
      /`backoffMaxMs` must not be below `backoffBaseMs`/,
    );
    expect(() => createWebhookDelivery({ store: store as never, env: {} })).toThrow(/webhooks need CA_KEY_ENCRYPTION_KEY/);
    expect(() => createCaApiRouter({ webhooks: { enabled: true, retries: 3 } as never })).toThrow(OptionsError);
    expect(() => createCaApiRouter({ webhooks: { enabled: 'yes' } as never })).toThrow(/`webhooks.enabled` must be true or false/);
    expect(() => createCaApiRouter({ webhooks: { maxAttempts: 0 } })).toThrow(/`webhooks.maxAttempts` must be an integer from 1 to 1000/);
    expect(() => createCaApiRouter({ webhooks: { expiringIncludeAutogenerated: 1 } as never })).toThrow(
      /`webhooks.expiringIncludeAutogenerated` must be true or false/,
    );
    // Enabled over a store without webhooks, or without a key-encryption key: refused before anything starts.
    const methods = ['findCaBySerial', 'listCas', 'findUser', 'getUserById', 'createOrder', 'getOrder'];
    const plainStore = Object.fromEntries(methods.map((m) => [m, () => undefined])) as unknown as Store;
    const keyBackends = {
      default: { alias: 'default', createKey: () => undefined, importKey: () => undefined, getSigner: () => undefined } as never,
    };
    const router = (o: object) =>
      createCaApiRouter({ enableRestApi: true, store: plainStore, keyBackends, webhooks: { enabled: true }, ...o });
    expect(() => router({ env })).toThrow(/createCaApiRouter: webhooks.enabled: option `store` must be a store with the webhook/);
    expect(() => router({ env: {} })).toThrow(/createCaApiRouter: webhooks need CA_KEY_ENCRYPTION_KEY/);
  });
});
