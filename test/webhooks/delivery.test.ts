/**
 * Webhooks end to end (docs/operations/webhooks.md): a router with `webhooks: { enabled: true }`, an endpoint
 * added by `ca-admin add_webhook`, certificates issued and revoked through REST and `ca-admin`, and a
 * real receiver that verifies every request with the Standard Webhooks reference library. Each event
 * arrives exactly once, in the order it committed; a receiver that is down for a while loses nothing.
 */
import request from 'supertest';
import * as fs from 'fs';
import { hasEventLog, type DomainEvent, type EventLog } from '../../lib/ports';
import { API, issueThroughApi, opensslCsr, setupApi, type ApiFixture } from '../api/fixture';
import { cliRunner, TEST_KEK } from '../cli/helpers';
import { opensslCsr as cliCsr, tmpDir } from '../cli/openssl';
import { testDatabaseTargets } from '../helpers/database';
import { Receiver, sleep } from './receiver';

const WANTED = new Set(['certificate.issued', 'certificate.revoked']);

describe.each(testDatabaseTargets())('webhooks through REST and ca-admin, on $name', (target) => {
  let f: ApiFixture;
  let log: EventLog;
  let receiver: Receiver;
  let cli: ReturnType<typeof cliRunner>;
  let dir: string;
  /** What the router logged: delivery failures are the endpoint's state, not log lines. */
  const logged: string[] = [];
  /** The id of the last event before the endpoint was added. */
  let start = 0;

  beforeAll(async () => {
    f = await setupApi(target, {
      env: { CA_KEY_ENCRYPTION_KEY: TEST_KEK },
      logError: (message: string) => logged.push(message),
      metrics: { enabled: true, processMetrics: false },
      webhooks: { enabled: true, pollMs: 20, timeoutMs: 2000, backoffBaseMs: 20, backoffMaxMs: 200, maxAttempts: 1000, expiringDays: 0 },
    });
    if (!hasEventLog(f.store)) throw new Error('the knex store keeps events');
    log = f.store;
    cli = cliRunner(f.store);
    dir = tmpDir('webhooks-');
    receiver = await new Receiver().start();
    start = await log.latestEventId();
    const added = await cli(['add_webhook', receiver.url, '--event', 'certificate.issued', '--event', 'certificate.revoked']);
    expect(added.code).toBe(0);
    const secret = /^secret: (whsec_[A-Za-z0-9+/=]+)$/m.exec(added.stdout);
    expect(secret).not.toBeNull();
    receiver.secret = secret![1];
  });
  afterAll(async () => {
    await f?.close();
    await receiver?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The wanted events of the outbox since the endpoint was added, in id order. */
  async function wantedEvents(): Promise<DomainEvent[]> {
    const out: DomainEvent[] = [];
    for (let page = await log.eventsSince(start, 100); page.length; page = await log.eventsSince(out[out.length - 1]?.id ?? start, 100)) {
      out.push(...page);
      if (page.length < 100) break;
    }
    return out.filter((e) => WANTED.has(e.type));
  }

  /** Every wanted event received exactly once, in outbox order, and nothing else. */
  async function expectExactlyOnceInOrder(): Promise<void> {
    const expected = await wantedEvents();
    await receiver.waitFor(expected.length);
    await sleep(150); // anything extra (a double) would arrive within a few polls
    expect(receiver.rejected).toBe(0);
    expect(receiver.received.map((r) => r.data.event_id)).toEqual(expected.map((e) => e.id));
    expect(receiver.received.map((r) => r.type)).toEqual(expected.map((e) => e.type));
    expect(receiver.received.map((r) => r.data.serial)).toEqual(expected.map((e) => e.serial));
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(receiver.received.length);
    expect(logged).toEqual([]);
  }

  it('each certificate issued or revoked through REST and ca-admin arrives once, verified, in commit order', async () => {
    const a = await issueThroughApi(f, opensslCsr().csr);
    const b = await issueThroughApi(f, opensslCsr().csr);
    const revoked = await request(f.app)
      .post(`${API}/ca/${f.ca.serial}/certs/${a}/revoke/`)
      .set(f.auth('bob'))
      .send({ reason: 'superseded' });
    expect(revoked.status).toBe(200);
    // ca-admin's own CA: its key under the CLI's key-encryption key.
    expect(
      (await cli(['init_ca', '--key-type', 'EC', '--no-default-hostname', '--expires', '400', 'Cli', 'CN=cli.example.com'])).stderr,
    ).toBe('');
    expect((await cli(['sign_cert', '--ca', 'Cli', '--csr', cliCsr(dir, 'leaf'), '--subject', 'CN=cli.example.com'])).stderr).toBe('');
    expect((await cli(['revoke_cert', b, '--reason', 'key_compromise'])).stderr).toBe('');

    await expectExactlyOnceInOrder();
    expect(receiver.received.map((r) => r.type)).toEqual([
      'certificate.issued',
      'certificate.issued',
      'certificate.revoked',
      'certificate.issued',
      'certificate.revoked',
    ]);
    expect(receiver.received[2].data).toMatchObject({ serial: a, reason: 'superseded', actor: { type: 'api_user', name: 'bob' } });
    expect(receiver.received[4].data).toMatchObject({ serial: b, actor: { type: 'operator', protocol: 'cli' } });

    const listed = await cli(['list_webhooks']);
    expect(listed.stdout).toMatch(
      /^1 - http:\/\/127\.0\.0\.1:\d+\/hooks - certificate\.issued, certificate\.revoked - after event \d+, 5 delivered\n$/,
    );
    expect(listed.stdout).not.toContain('whsec_');
  });

  it('a receiver down for a while loses nothing, and the order holds; issued meanwhile through REST', async () => {
    await receiver.stop();
    const serials: string[] = [];
    for (let i = 0; i < 3; i++) serials.push(await issueThroughApi(f, opensslCsr().csr));
    await sleep(300); // several attempts fail (connection refused) and back off
    const failing = await cli(['list_webhooks']);
    expect(failing.stdout).toMatch(/failing \(\d+ attempts, last: fetch failed \(ECONNREFUSED\)/);

    await receiver.start();
    await expectExactlyOnceInOrder();
    expect(receiver.received.slice(-3).map((r) => r.data.serial)).toEqual(serials);
    // The metrics count this process's attempts: every delivery, and the failures while it was down.
    const scrape = await request(f.app).get('/metrics');
    expect(scrape.text).toContain(`ca_api_webhook_deliveries_total{endpoint="1",outcome="delivered"} ${receiver.received.length}\n`);
    expect(scrape.text).toMatch(/ca_api_webhook_deliveries_total\{endpoint="1",outcome="failed"\} [1-9]/);
    expect(scrape.text).toMatch(/ca_api_webhook_lag_seconds\{endpoint="1"\} \d/);
  });
});
