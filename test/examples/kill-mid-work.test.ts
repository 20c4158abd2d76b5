/**
 * Durable work survives the death of the instance doing it (docs/guides/acme.md, docs/operations/webhooks.md, D3): for each
 * kind of work — a REST order, an ACME validation, an ACME issuance, a webhook delivery — two real
 * instances (fixtures/work-host.ts, child processes) share one PostgreSQL schema; instance A is caught
 * in the middle of the work (its signature held by a gate file the test owns, the test's http-01
 * responder or webhook receiver holding A's request open), then SIGKILLed; B finishes the work once
 * A's lease has lapsed, and it is done exactly once: one certificate and one `certificate.issued`
 * event per order, the right final states, one recorded delivery per event (a retried attempt
 * carrying the same `webhook-id`, as docs/operations/webhooks.md promises at-least-once receivers).
 *
 * Everything is observed through public surfaces: the REST and ACME APIs, the rows of the database,
 * what the responder and the receiver saw. PostgreSQL only (PGlite is one process's database).
 */
import type { ChildProcess } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import * as acme from 'acme-client';
import { Webhook } from 'standardwebhooks';
import { envKekSecretBox } from '../../adapters/keys/secret-box';
import { TABLES } from '../../adapters/store/knex/tables';
import { defaultKeyBackend, initCa, type CaRecord } from '../../lib';
import { createApiUser } from '../../lib/accounts/users';
import { hasEventLog, type DomainEvent } from '../../lib/ports';
import { addWebhook } from '../../lib/webhooks/management';
import { opensslCsr } from '../api/fixture';
import { childDatabaseUrl } from '../cli/database-url';
import { TEST_KEK } from '../cli/helpers';
import { WireClient } from '../helpers/acme-wire';
import { describeOnPostgres, openTestDatabase, type TestDatabase } from '../helpers/database';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { acmeOrderAt } from './fixtures/acme-order';
import { startWorkHost, type Host } from './fixtures/work-host-process';
import { sleep, until } from '../helpers/until';

const PASSWORD = 'kill mid work';

/** How A's part of the work ends (`endA`). */
const ENDINGS = ['killed', 'stalled past its lease'] as const;
type Ending = (typeof ENDINGS)[number];

describeOnPostgres('an instance killed mid-work: another finishes it, exactly once (PostgreSQL)', (target) => {
  let db: TestDatabase;
  let dir: string;
  let dns: TestDnsServer;
  let ca: CaRecord;
  const hosts: Host[] = [];
  const env: Record<string, string> = {};

  /**
   * http-01 answers by token. While `holdHttp01` is set, the first request for a token is held open
   * (never answered): A's; any later one is answered, should B come before A is dead on a slow machine.
   */
  const http01 = new Map<string, string>();
  let holdHttp01 = false;
  const http01Seen: { token: string; held: boolean }[] = [];
  let responder: http.Server;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kill-mid-work-'));
    dns = await startDnsServer();
    responder = http.createServer((req, res) => {
      const token = (req.url ?? '').replace('/.well-known/acme-challenge/', '');
      const held = holdHttp01 && !http01Seen.some((s) => s.token === token);
      http01Seen.push({ token, held });
      if (held) return; // A's validator waits here until A dies
      const answer = http01.get(token);
      res.statusCode = answer ? 200 : 404;
      res.end(answer ?? 'not found');
    });
    await new Promise<void>((r) => responder.listen(0, '127.0.0.1', r));
    const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: TEST_KEK }) };
    const base = { store: db.store, keyBackends, keyType: 'EC' as const, defaultHostname: 'ca.example.com' };
    const root = await initCa({ ...base, name: 'root', subject: [{ oid: 'CN', value: 'Kill Test Root' }], pathLength: 1 });
    ca = await initCa({ ...base, name: 'issuing', subject: [{ oid: 'CN', value: 'Kill Test Issuing' }], parent: root, expiresDays: 365 });
    ca = await db.store.updateCa(ca.id, { apiEnabled: true, acmeEnabled: true, acmeRequiresContact: false });
    await createApiUser(db.store, 'worker', PASSWORD, {}, { bcryptCost: 4 });
    Object.assign(env, {
      DATABASE_URL: childDatabaseUrl(target, db),
      CA_KEY_ENCRYPTION_KEY: TEST_KEK,
      CA_ACME_DNS_SERVERS: dns.address,
      CA_ACME_HTTP01_PORT: String((responder.address() as AddressInfo).port),
    });
  }, 120_000);

  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => stop(h.child, 'SIGKILL')));
    holdHttp01 = false;
  });

  afterAll(async () => {
    responder?.closeAllConnections();
    await new Promise((r) => responder?.close(r));
    await dns?.close();
    await db?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Start a work-host; resolves once it serves. `gate`: its signing gate file (see the fixture). */
  function startHost(options: Record<string, unknown> = {}, gate?: string): Promise<Host> {
    const given = { ...env, WORK_HOST_OPTIONS: JSON.stringify(options), ...(gate ? { WORK_HOST_SIGNING_GATE: gate } : {}) };
    return startWorkHost(given, (host) => hosts.push(host));
  }

  function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
    return new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }

  const count = async (table: string, where: Record<string, unknown> = {}) =>
    Number(((await db.knex(table).where(where).count('* as n').first()) as { n: string | number }).n);

  async function eventsAfter(id: number): Promise<DomainEvent[]> {
    if (!hasEventLog(db.store)) throw new Error('the knex store keeps events');
    const out: DomainEvent[] = [];
    for (let page = await db.store.eventsSince(id, 500); page.length; page = await db.store.eventsSince(out[out.length - 1].id, 500)) {
      out.push(...page);
    }
    return out;
  }
  const lastEventId = async () => {
    const row = (await db.knex(TABLES.events).max('id as id').first()) as { id: string | number | null };
    return Number(row.id ?? 0);
  };

  /** A gate file for a host: while it exists, the host's signatures wait (fixtures/work-host.ts). */
  function gateFile(name: string): { path: string; held: () => boolean; signed: () => boolean } {
    const file = path.join(dir, `${name}-${randomBytes(4).toString('hex')}.gate`);
    return { path: file, held: () => fs.existsSync(`${file}.held`), signed: () => fs.existsSync(`${file}.signed`) };
  }

  /**
   * How A's part ends: SIGKILLed while it signs; or left stalled there (a stopped VM, a long pause)
   * until B has finished, then let go: its late signature must store nothing.
   */
  async function endA(a: Host, ending: Ending): Promise<void> {
    if (ending === 'killed') await stop(a.child, 'SIGKILL');
  }
  async function wakeA(gate: { path: string; signed: () => boolean }, ending: Ending): Promise<void> {
    if (ending === 'killed') return;
    fs.unlinkSync(gate.path);
    await until("A's late signature made", async () => gate.signed());
  }

  test.each(ENDINGS)(
    'REST order: A, %s while signing the order leased to it, leaves it to B, which issues it once after the lease',
    async (ending) => {
      const gate = gateFile('rest');
      // The queued path, where the order is durable work (docs/reference/differences.md D3): written pending, leased to A's runner.
      const options = { signInRequest: false, orderWaitMs: 0 };
      const [a, b] = await Promise.all([startHost(options, gate.path), startHost(options)]);
      const auth = { Authorization: `Basic ${Buffer.from(`worker:${PASSWORD}`).toString('base64')}` };
      const certificatesBefore = await count(TABLES.certificates);
      const eventsBefore = await lastEventId();

      fs.writeFileSync(gate.path, '');
      const res = await fetch(`${a.url}/django_ca/api/ca/${ca.serial}/sign/`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ csr: opensslCsr('EC').csr, subject: [{ oid: 'CN', value: 'rest.kill.example.com' }] }),
      });
      expect(res.status).toBe(200);
      const { slug } = (await res.json()) as { slug: string };
      await until("A's runner signing", async () => gate.held());
      // The order's rest_order job, written with it, is leased to A's runner (no row lock on the order).
      const placed = (await db.knex(TABLES.orders).where({ slug }).first()) as { id: number; status: string };
      expect(placed.status).toBe('pending');
      const leased = (await db
        .knex(TABLES.jobs)
        .where({ kind: 'rest_order', reference: String(placed.id) })
        .first()) as {
        state: string;
        lease_owner: string | null;
        lease_until: Date;
      };
      expect(leased).toMatchObject({ state: 'pending', lease_owner: expect.stringMatching(/^in-process:/) });
      await endA(a, ending);

      const order = await until('the order issued by B', async () => {
        const r = await fetch(`${b.url}/django_ca/api/ca/${ca.serial}/orders/${slug}/`, { headers: auth });
        const body = (await r.json()) as { status: string; serial: string | null };
        return body.status !== 'pending' && body;
      });
      expect(order.status).toBe('issued');
      const row = (await db.knex(TABLES.orders).where({ slug }).first()) as { status: string; updated: Date; certificate_id: number };
      expect(row.status).toBe('issued');
      expect(row.updated.getTime()).toBeGreaterThanOrEqual(new Date(leased.lease_until).getTime()); // B waited for A's lease
      // Its job ended once, with the order.
      expect(await db.knex(TABLES.jobs).where({ kind: 'rest_order', reference: String(placed.id) })).toMatchObject([
        { state: 'done', lease_owner: null },
      ]);
      const cert = await fetch(`${b.url}/django_ca/api/ca/${ca.serial}/certs/${order.serial}/`, { headers: auth });
      expect(cert.status).toBe(200);

      await wakeA(gate, ending);
      await sleep(1500); // a double would be written within a poll or two of B's runner
      expect(await count(TABLES.certificates)).toBe(certificatesBefore + 1);
      const issued = (await eventsAfter(eventsBefore)).filter((e) => e.type === 'certificate.issued');
      expect(issued.map((e) => e.serial)).toEqual([order.serial]);
      expect(await db.knex(TABLES.orders).where({ slug }).first()).toMatchObject({ status: 'issued', certificate_id: row.certificate_id });
    },
    60_000,
  );

  /** An ACME account at `host`, an order for `name` and its http-01 challenge, with the key authorization served. */
  const acmeOrder = (host: Host, name: string) => acmeOrderAt(host.url, ca.serial, name, { dns, http01 });

  /** The same account, through another instance. */
  async function sameAccountAt(host: Host, client: WireClient, from: Host): Promise<WireClient> {
    const other = await new WireClient(`${host.url}/django_ca/acme/directory/${ca.serial}/`, client.key).init();
    other.kid = (client.kid as string).replace(from.url, host.url);
    return other;
  }

  test('ACME validation: A dies while its http-01 request is held; B validates the challenge once after the lease', async () => {
    const [a, b] = await Promise.all([startHost(), startHost()]);
    const { client, orderUrl, authzUrl, challenge } = await acmeOrder(a, 'validation.kill.example.com');
    holdHttp01 = true;
    const started = await client.post(challenge.url, {});
    expect((started.body as { status: string }).status).toBe('processing');
    await until("A's validator at the responder", async () => http01Seen.some((s) => s.token === challenge.token && s.held));
    // The challenge's job (migration 0034), written by the statement that started it, leased to A.
    const startedRow = (await db.knex(TABLES.acmeChallenges).where({ token: challenge.token, type: 'http-01' }).first()) as { id: number };
    const validationJob = { kind: 'acme_validation', reference: String(startedRow.id) };
    const leased = (await db.knex(TABLES.jobs).where(validationJob).first()) as Record<string, unknown>;
    expect(leased).toMatchObject({
      state: 'pending',
      attempts: 0,
      lease_owner: expect.stringMatching(new RegExp(`^acme-${a.child.pid}-`)),
    });
    await stop(a.child, 'SIGKILL');
    holdHttp01 = false;

    const viaB = await sameAccountAt(b, client, a);
    const at = (url: string) => url.replace(a.url, b.url);
    const final = await until('the challenge finished by B', async () => {
      const body = (await viaB.post(at(challenge.url), undefined)).body as { status: string };
      return body.status !== 'processing' && body;
    });
    expect(final.status).toBe('valid');
    expect(((await viaB.post(at(authzUrl), undefined)).body as { status: string }).status).toBe('valid');
    expect(((await viaB.post(at(orderUrl), undefined)).body as { status: string }).status).toBe('ready');
    const row = (await db.knex(TABLES.acmeChallenges).where({ token: challenge.token, type: 'http-01' }).first()) as Record<
      string,
      unknown
    >;
    expect(row).toMatchObject({ status: 'valid', attempts: 1 }); // one attempt recorded: B's
    expect(await db.knex(TABLES.jobs).where(validationJob).first()).toMatchObject({ state: 'done', lease_owner: null }); // ended once
    expect(new Date(row.validated as string).getTime()).toBeGreaterThanOrEqual(new Date(leased.lease_until as string).getTime());
    expect(http01Seen.filter((s) => s.token === challenge.token).map((s) => s.held)).toEqual([true, false]);
  }, 60_000);

  test.each(ENDINGS)(
    'ACME issuance: A, %s while signing the order finalize moved to processing, leaves it to B, which issues it once after the lease',
    async (ending) => {
      const gate = gateFile('acme');
      const [a, b] = await Promise.all([startHost({}, gate.path), startHost()]);
      const name = `issuance-${randomBytes(4).toString('hex')}.kill.example.com`;
      const { client, orderUrl, challenge } = await acmeOrder(a, name);
      await client.post(challenge.url, {});
      await until('the order ready', async () => ((await client.post(orderUrl, undefined)).body as { status: string }).status === 'ready');
      const certificatesBefore = await count(TABLES.certificates);
      const eventsBefore = await lastEventId();

      fs.writeFileSync(gate.path, '');
      const [, csrPem] = await acme.crypto.createCsr({ commonName: name });
      const csr = Buffer.from(csrPem.toString().replace(/-----[^-]+-----|\s/g, ''), 'base64').toString('base64url');
      const finalizeUrl = ((await client.post(orderUrl, undefined)).body as { finalize: string }).finalize;
      const finalizing = client.post(finalizeUrl, { csr }); // answered after finalizeWaitMs: A's signature is held
      await until('A signing the certificate', async () => gate.held());
      // Answered once the order is `processing` (signing began beside that move: lib/acme/issue.ts).
      const answered = await finalizing;
      expect([answered.status, (answered.body as { status: string }).status]).toEqual([200, 'processing']);
      const leased = (await db
        .knex(TABLES.acmeOrders)
        .whereIn('id', db.knex(TABLES.acmeAuthorizations).select('order_id').where({ identifier_value: name }))
        .first()) as Record<string, unknown>;
      expect(leased).toMatchObject({ status: 'processing', certificate_id: null });
      // The order's job (migration 0034), written by finalize's statement, leased to A.
      const issuanceJob = { kind: 'acme_issuance', reference: String(leased.id) };
      const job = (await db.knex(TABLES.jobs).where(issuanceJob).first()) as Record<string, unknown>;
      expect(job).toMatchObject({ state: 'pending', lease_owner: expect.stringMatching(new RegExp(`^acme-${a.child.pid}-`)) });
      await endA(a, ending);

      const viaB = await sameAccountAt(b, client, a);
      const order = await until('the order finished by B', async () => {
        const body = (await viaB.post(orderUrl.replace(a.url, b.url), undefined)).body as { status: string; certificate?: string };
        return body.status !== 'processing' && body;
      });
      expect(order.status).toBe('valid');
      const chain = await viaB.post(order.certificate as string, undefined);
      expect(chain.status).toBe(200);
      expect(chain.text).toContain('BEGIN CERTIFICATE');
      const row = (await db.knex(TABLES.acmeOrders).where({ id: leased.id }).first()) as Record<string, unknown>;
      expect(row).toMatchObject({ status: 'valid' });
      expect(new Date(row.updated as string).getTime()).toBeGreaterThanOrEqual(new Date(job.lease_until as string).getTime());

      await wakeA(gate, ending);
      await sleep(1500); // a double would be written within a poll or two of B's runner
      expect(await count(TABLES.certificates)).toBe(certificatesBefore + 1);
      const stored = (await db.knex(TABLES.certificates).where({ id: row.certificate_id }).first()) as { serial: string };
      const issued = (await eventsAfter(eventsBefore)).filter((e) => e.type === 'certificate.issued');
      expect(issued.map((e) => e.serial)).toEqual([stored.serial]);
      expect(await db.knex(TABLES.acmeOrders).where({ id: leased.id }).first()).toMatchObject({
        status: 'valid',
        certificate_id: row.certificate_id,
      });
      expect(await db.knex(TABLES.jobs).where(issuanceJob).first()).toMatchObject({ state: 'done', lease_owner: null }); // ended once
    },
    60_000,
  );

  test('webhook delivery: A dies while its request is held; B delivers after the lease, the same webhook-id, recorded once', async () => {
    // The receiver holds the first request open; later ones it verifies (Standard Webhooks) and answers 204.
    const seen: { id: string; eventId: number; held: boolean; at: number }[] = [];
    let secret = '';
    let holdHooks = true; // until A is dead: A's requests (a timed-out one's retry too) are held
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('error', () => undefined);
      req.on('end', () => {
        let payload: { data: { event_id: number } };
        try {
          payload = new Webhook(secret).verify(
            Buffer.concat(chunks).toString('utf8'),
            req.headers as Record<string, string>,
          ) as typeof payload;
        } catch {
          seen.push({ id: 'not signed with the secret', eventId: 0, held: false, at: Date.now() });
          return res.writeHead(401).end();
        }
        const held = holdHooks;
        seen.push({ id: String(req.headers['webhook-id']), eventId: payload.data.event_id, held, at: Date.now() });
        if (!held) res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const [one, two] = await Promise.all([startHost(), startHost()]);
      const box = envKekSecretBox({ CA_KEY_ENCRYPTION_KEY: TEST_KEK })!;
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const added = await addWebhook(db.store.webhooks, box, { url, eventTypes: ['user.created'] });
      secret = added.secret;
      const eventsBefore = await lastEventId();
      await db.store.createUser('hooked-1', 'hash', []);
      await db.store.createUser('hooked-2', 'hash', []);
      const events = (await eventsAfter(eventsBefore)).filter((e) => e.type === 'user.created');
      expect(events).toHaveLength(2);

      // Whichever instance leased the endpoint is A: its request is the one held.
      await until('the first request at the receiver', async () => seen.length > 0);
      const endpoint = () => db.knex(TABLES.webhookEndpoints).where({ id: added.endpoint.id }).first() as Promise<Record<string, unknown>>;
      // The endpoint's lease is its job's (migration 0033).
      const job = { kind: 'webhook_delivery', reference: String(added.endpoint.id) };
      const leased = (await db.knex(TABLES.jobs).where(job).first()) as Record<string, unknown>;
      const owner = /^jobs-(\d+)-/.exec(String(leased.lease_owner));
      const a = [one, two].find((h) => String(h.child.pid) === owner?.[1]);
      if (!a) throw new Error(`no instance holds the endpoint's lease: ${String(leased.lease_owner)}`);
      await stop(a.child, 'SIGKILL');
      holdHooks = false;

      await until('both events answered 2xx', async () => seen.filter((s) => !s.held).length >= 2);
      await sleep(1000); // a double would come within a few polls
      const [first, second] = events;
      // A's attempts (one, unless it timed out and retried before it died) and B's: the first event
      // again with the same webhook-id, then the second; each answered 2xx once.
      const held = seen.filter((s) => s.held);
      const answered = seen.filter((s) => !s.held);
      expect(held.length).toBeGreaterThanOrEqual(1);
      expect(new Set(held.map((s) => `${s.id} ${s.eventId}`))).toEqual(new Set([`evt_${first.id} ${first.id}`]));
      expect(answered.map((s) => [s.id, s.eventId])).toEqual([
        [`evt_${first.id}`, first.id],
        [`evt_${second.id}`, second.id],
      ]);
      expect(answered[0].at).toBeGreaterThanOrEqual(new Date(leased.lease_until as string).getTime()); // B waited for A's lease
      // Past both (and past any later event it did not ask for), each delivered once, nothing failing.
      const after = await endpoint();
      expect({ ...after, position: Number(after.position) >= second.id }).toMatchObject({ position: true, delivered: '2', attempts: 0 });
      expect(await count(TABLES.webhookDeadLetters, { endpoint_id: added.endpoint.id })).toBe(0);
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  }, 60_000);
});
