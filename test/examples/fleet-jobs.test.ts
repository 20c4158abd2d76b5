/**
 * Every kind of background job on a fleet (docs/DESIGN.md "Background jobs"): three real instances
 * (fixtures/work-host.ts, child processes) on one PostgreSQL, each running its job runner, take REST
 * orders left to the queue, ACME validations and issuances, webhook deliveries and the expiry scan —
 * and each piece of work is done once: one certificate and one `certificate.issued` event per order,
 * one `certificate.expiring` event per certificate about to expire, one delivery per event, and no
 * job of any kind left failed or due. Killing an instance in the middle of a job is
 * test/examples/kill-mid-work.test.ts's part. PostgreSQL only (PGlite is one process's database).
 */
import * as acme from 'acme-client';
import { X509Certificate } from 'crypto';
import { envKekSecretBox } from '../../adapters/keys/secret-box';
import { TABLES } from '../../adapters/store/knex/tables';
import { hasEventLog, type DomainEvent } from '../../lib/ports';
import { addWebhook } from '../../lib/webhooks/management';
import { opensslCsr } from '../api/fixture';
import { TEST_KEK } from '../cli/helpers';
import { describeOnPostgres } from '../helpers/database';
import { sleep, until } from '../helpers/until';
import { acmeOrderAt } from './fixtures/acme-order';
import type { Host } from './fixtures/work-host-process';
import { FLEET_USER, openWorkFleet, type WorkFleet } from './fixtures/work-fleet';

const DAY_MS = 24 * 60 * 60 * 1000;
const REST_ORDERS = 9;
describeOnPostgres('three instances on one PostgreSQL run every kind of job, each piece of work once', (target) => {
  let fleet: WorkFleet;
  const auth = { Authorization: `Basic ${Buffer.from(`${FLEET_USER.name}:${FLEET_USER.password}`).toString('base64')}` };

  beforeAll(async () => {
    fleet = await openWorkFleet(target);
  }, 120_000);
  afterAll(async () => {
    await fleet?.close();
  });

  async function events(): Promise<DomainEvent[]> {
    const store = fleet.db.store;
    if (!hasEventLog(store)) throw new Error('the knex store keeps events');
    const out: DomainEvent[] = [];
    for (let page = await store.eventsSince(0, 500); page.length; page = await store.eventsSince(out[out.length - 1].id, 500))
      out.push(...page);
    return out;
  }

  /** A REST sign through `host`, left to the queue (the hosts sign nothing in the request); its slug. */
  async function placeOrder(host: Host, name: string, notAfter: Date): Promise<string> {
    const res = await fetch(`${host.url}/django_ca/api/ca/${fleet.ca.serial}/sign/`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ csr: opensslCsr('EC').csr, subject: [{ oid: 'CN', value: name }], not_after: notAfter.toISOString() }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { slug: string }).slug;
  }

  /** An ACME order for `name` through `host`, validated over http-01 and finalized; the serial of its certificate. */
  async function acmeCertificate(host: Host, name: string): Promise<string> {
    const { client, orderUrl, finalize, challenge } = await acmeOrderAt(host.url, fleet.ca.serial, name, fleet);
    await client.post(challenge.url, {});
    const status = async () => (await client.post(orderUrl, undefined)).body as { status: string; certificate?: string };
    await until(`${name} ready`, async () => (await status()).status === 'ready', 60_000);
    const [, csrPem] = await acme.crypto.createCsr({ commonName: name });
    const csr = Buffer.from(csrPem.toString().replace(/-----[^-]+-----|\s/g, ''), 'base64').toString('base64url');
    expect((await client.post(finalize, { csr })).status).toBe(200);
    const valid = await until(
      `${name} valid`,
      async () => {
        const order = await status();
        return order.status !== 'processing' && order.status !== 'ready' && order;
      },
      60_000,
    );
    expect(valid.status).toBe('valid');
    const chain = (await client.post(valid.certificate as string, undefined)).text;
    const [leaf] = chain.split(/(?<=-----END CERTIFICATE-----)/);
    return new X509Certificate(leaf.trim()).serialNumber.toUpperCase();
  }

  test('REST orders, ACME validations and issuances, webhook deliveries and the expiry scan', async () => {
    const store = fleet.db.store;
    const box = envKekSecretBox({ CA_KEY_ENCRYPTION_KEY: TEST_KEK })!;
    const added = await addWebhook(store.webhooks, box, {
      url: fleet.receiverUrl,
      eventTypes: ['certificate.issued', 'certificate.expiring'],
    });
    fleet.setReceiverSecret(added.secret);
    // The queued path for REST orders; certificates within 30 days of their end are announced.
    const options = { signInRequest: false, orderWaitMs: 0, webhooks: { expiringDays: 30, expiringScanMs: 500 } };
    const hosts = await Promise.all([0, 1, 2].map(() => fleet.startHost(options)));

    const soon = new Date(Date.now() + 10 * DAY_MS); // expiring: within 30 days
    const slugs = await Promise.all(
      Array.from({ length: REST_ORDERS }, (_, i) => placeOrder(hosts[i % hosts.length], `rest-${i}.fleet.example.com`, soon)),
    );
    const acmeSerials = await Promise.all(hosts.map((host, i) => acmeCertificate(host, `acme-${i}.fleet.example.com`)));
    const restSerials = await Promise.all(
      slugs.map((slug, i) =>
        until(
          `order ${slug} issued`,
          async () => {
            const res = await fetch(`${hosts[(i + 1) % hosts.length].url}/django_ca/api/ca/${fleet.ca.serial}/orders/${slug}/`, {
              headers: auth,
            });
            const body = (await res.json()) as { status: string; serial: string | null };
            expect(body.status).not.toBe('failed');
            return body.status === 'issued' && (body.serial as string);
          },
          60_000,
        ),
      ),
    );
    const normal = (serials: (string | null)[]) => serials.map((s) => String(s).replace(/:/g, '').replace(/^0+/, '').toUpperCase()).sort();
    const issuedSerials = normal([...restSerials, ...acmeSerials]);

    // Every REST certificate ends within 30 days: each announced once, by whichever instance scanned.
    const expected = issuedSerials.length + restSerials.length;
    await until('every event delivered', async () => new Set(fleet.deliveries.map((d) => d.webhookId)).size >= expected, 60_000);
    await sleep(1500); // a second scan, a double delivery or a second certificate would come within a few polls

    const all = await events();
    const issued = all.filter((e) => e.type === 'certificate.issued').map((e) => e.serial);
    const expiring = all.filter((e) => e.type === 'certificate.expiring').map((e) => e.serial);
    expect(normal(issued)).toEqual(issuedSerials); // one certificate.issued per order, REST and ACME
    expect(normal(expiring)).toEqual(normal(restSerials)); // one notice per certificate about to expire
    const stored = (await fleet.db.knex(TABLES.certificates).where({ autogenerated: false }).select('serial')) as { serial: string }[];
    expect(normal(stored.map((c) => c.serial))).toEqual(issuedSerials); // no certificate without its event
    // Each event delivered once (a webhook-id is an event's), both kinds, nothing dead-lettered.
    expect(fleet.deliveries).toHaveLength(expected);
    expect(new Set(fleet.deliveries.map((d) => d.webhookId)).size).toBe(expected);
    expect(Number((await fleet.db.knex(TABLES.webhookDeadLetters).count('* as n').first())?.n)).toBe(0);

    // The jobs: every kind ran here, none failed, none still due.
    const jobs = (await fleet.db.knex(TABLES.jobs).select('kind', 'state', 'run_at', 'attempts')) as {
      kind: string;
      state: string;
      run_at: Date;
    }[];
    const kinds = new Set(jobs.map((j) => j.kind));
    for (const kind of ['rest_order', 'acme_validation', 'acme_issuance', 'webhook_delivery', 'expiry_scan']) expect(kinds).toContain(kind);
    expect(jobs.filter((j) => j.state === 'failed')).toEqual([]);
    const dueNow = jobs.filter((j) => j.state === 'pending' && new Date(j.run_at).getTime() < Date.now() - 5000);
    expect(dueNow).toEqual([]);
    expect(jobs.filter((j) => j.kind === 'rest_order').map((j) => j.state)).toEqual(Array(REST_ORDERS).fill('done'));
  }, 180_000);
});
