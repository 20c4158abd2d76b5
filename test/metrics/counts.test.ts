/**
 * The metrics endpoint beside the REST API (docs/operations/metrics.md), on a real store: certificates issued
 * through REST (signed in the request, and queued) and through `ca-admin`, a revocation, OCSP
 * requests of every answer, a CRL, failed and limited logins, pending and failed orders — each moves
 * its metric by exactly its amount, read from the scrape with a real Prometheus text-format parser.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import request from 'supertest';
import { loginAttemptLimiter } from '../../lib';
import { pemEncode } from '../../lib/x509/pem';
import { API, issueThroughApi, opensslCsr, setupApi, waitForOrder, type ApiFixture } from '../api/fixture';
import { cliRunner } from '../cli/helpers';
import { opensslCsr as cliCsr, tmpDir } from '../cli/openssl';
import { testDatabaseTargets } from '../helpers/database';
import { buildApp, type TestApp } from '../helpers/http';
import { scrape, type Scrape } from './scrape';

const PUBLIC = '/django_ca';

function binary(res: request.Response, cb: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
}

/** `after − before` of a counter or gauge, for the labels given. */
const delta = (before: Scrape, after: Scrape, name: string, labels: Record<string, string> = {}): number =>
  after.value(name, labels) - before.value(name, labels);

describe.each(testDatabaseTargets())('metrics beside the REST API ($name)', (target) => {
  let f: ApiFixture;
  let dir: string;

  beforeAll(async () => {
    f = await setupApi(target, {
      metrics: { enabled: true, eventPollMs: 0 },
      loginLimiter: loginAttemptLimiter({ maxFailuresPerUser: 3, maxFailuresPerAddress: 100 }),
    });
    dir = tmpDir('metrics-');
    fs.writeFileSync(path.join(dir, 'ca.pem'), pemEncode(f.ca.der, 'CERTIFICATE'));
  });
  afterAll(async () => {
    await f?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** An OCSP request for `serial` of the fixture's CA, made by openssl. */
  function ocspRequest(serial: string): Buffer {
    const out = path.join(dir, `req-${serial}.der`);
    execFileSync('openssl', ['ocsp', '-issuer', 'ca.pem', '-serial', `0x${serial}`, '-no_nonce', '-reqout', out], {
      cwd: dir,
      stdio: 'pipe',
    });
    return fs.readFileSync(out);
  }

  const askOcsp = (body: Buffer) =>
    request(f.app).post(`${PUBLIC}/ocsp/${f.ca.serial}/cert/`).set('Content-Type', 'application/ocsp-request').send(body);

  test('issuance (REST and ca-admin), revocation, OCSP and a CRL move their metrics by their amounts', async () => {
    const before = await scrape(f.app);

    const ec = await issueThroughApi(f, opensslCsr('EC', 'ec.example.com').csr);
    const rsa = await issueThroughApi(f, opensslCsr('RSA', 'rsa.example.com').csr);
    const revoked = await request(f.app)
      .post(`${API}/ca/${f.ca.serial}/certs/${ec}/revoke/`)
      .set(f.auth('alice'))
      .send({ reason: 'keyCompromise' });
    expect(revoked.status).toBe(200);
    // ca-admin, with a CA of its own (its key under the CLI's key-encryption key)
    const cli = cliRunner(f.store);
    expect(
      (await cli(['init_ca', '--key-type', 'EC', '--no-default-hostname', '--expires', '400', 'Cli', 'CN=cli.example.com'])).stderr,
    ).toBe('');
    const signed = await cli(['sign_cert', '--ca', 'Cli', '--csr', cliCsr(dir, 'leaf'), '--subject', 'CN=cli-leaf.example.com']);
    expect(signed.stderr).toBe('');

    for (const serial of [rsa, ec, 'ABCDEF0123']) expect((await askOcsp(ocspRequest(serial))).status).toBe(200);
    expect((await askOcsp(Buffer.from('not an OCSP request'))).status).toBe(200);
    expect((await request(f.app).get(`${PUBLIC}/ocsp/${f.ca.serial}/cert/%%%`)).status).toBe(200); // no request at all
    const crl = await request(f.app).get(`${PUBLIC}/crl/${f.ca.serial}/`).buffer(true).parse(binary);
    expect(crl.status).toBe(200);

    const after = await scrape(f.app);
    const issued = 'ca_api_certificates_issued_total';
    expect(delta(before, after, issued, { ca: 'child', profile: 'webserver', key_type: 'EC', protocol: 'rest' })).toBe(1);
    expect(delta(before, after, issued, { ca: 'child', profile: 'webserver', key_type: 'RSA', protocol: 'rest' })).toBe(1);
    expect(delta(before, after, issued, { ca: 'Cli', key_type: 'EC', protocol: 'cli' })).toBe(1);
    expect(delta(before, after, issued, { protocol: 'rest' })).toBe(2);
    const revokedTotal = 'ca_api_certificates_revoked_total';
    expect(delta(before, after, revokedTotal, { ca: 'child', profile: 'webserver', key_type: 'EC', reason: 'key_compromise' })).toBe(1);
    expect(delta(before, after, revokedTotal)).toBe(1);
    expect(delta(before, after, 'ca_api_events_total', { type: 'certificate.revoked' })).toBe(1);
    expect(delta(before, after, 'ca_api_events_total', { type: 'ca.created' })).toBe(1);
    // Both REST certificates were signed in the request, and timed from it.
    expect(after.count('ca_api_issuance_duration_seconds', { path: 'in_request' })).toBe(
      before.count('ca_api_issuance_duration_seconds', { path: 'in_request' }) + 2,
    );

    const ocsp = 'ca_api_ocsp_responses_total';
    for (const answer of ['good', 'revoked', 'unknown']) expect(delta(before, after, ocsp, { answer })).toBe(1);
    expect(delta(before, after, ocsp, { answer: 'malformed_request' })).toBe(2);
    expect(delta(before, after, ocsp)).toBe(5);

    expect(after.count('ca_api_crl_build_duration_seconds', { scope: 'user' })).toBe(
      before.count('ca_api_crl_build_duration_seconds', { scope: 'user' }) + 1,
    );
    expect(after.value('ca_api_crl_size_bytes', { ca: 'child', scope: 'user' })).toBe((crl.body as Buffer).length);
    expect(after.value('ca_api_crl_entries', { ca: 'child', scope: 'user' })).toBe(1);
    expect(after.value('ca_api_database_up')).toBe(1);
    expect(
      after
        .samples('ca_api_database_pool_connections')
        .map((m) => m.labels?.state)
        .sort(),
    ).toEqual(['free', 'pending', 'used']);
    // prom-client's default process metrics share the registry.
    expect(after.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  test('labels never carry a certificate serial or a username', async () => {
    const serial = await issueThroughApi(f, opensslCsr('EC', 'label.example.com').csr);
    const text = (await scrape(f.app)).text;
    expect(text).not.toContain(serial);
    expect(text).not.toContain('alice');
  });

  test('failed logins are counted, and so are the 429s of the brute-force protection', async () => {
    const before = await scrape(f.app);
    const wrong = { Authorization: `Basic ${Buffer.from('bob:wrong password').toString('base64')}` };
    for (let i = 0; i < 3; i++) expect((await request(f.app).get(`${API}/ca/`).set(wrong)).status).toBe(401);
    expect((await request(f.app).get(`${API}/ca/`).set(wrong)).status).toBe(429);
    expect((await request(f.app).get(`${API}/ca/`).set(f.auth('bob'))).status).toBe(429);
    const after = await scrape(f.app);
    expect(delta(before, after, 'ca_api_login_failures_total')).toBe(3);
    expect(delta(before, after, 'ca_api_login_rate_limited_total')).toBe(2);
  });

  describe('orders', () => {
    const apps: TestApp[] = [];
    afterAll(async () => {
      for (const app of apps) await app.close();
    });

    const sign = (app: TestApp['app'], cn: string) =>
      request(app)
        .post(`${API}/ca/${f.ca.serial}/sign/`)
        .set(f.auth('alice'))
        .send({ csr: opensslCsr('EC', cn).csr, subject: [{ oid: 'CN', value: cn }] });

    test('pending orders are a gauge read from the store; a failed order is counted from its event', async () => {
      // A router whose (idle) runner takes nothing, and the fixture's runner stopped: orders stay pending.
      const idle = buildApp({
        enableRestApi: true,
        store: f.store,
        keyBackends: { default: f.keyBackend },
        orderWaitMs: 0,
        metrics: { enabled: true },
      });
      apps.push(idle);
      await f.runner.stop();
      const before = await scrape(idle.app);
      expect(before.value('ca_api_orders_pending', { ca: 'child' })).toBe(0);
      const placed = [await sign(idle.app, 'p1.example.com'), await sign(idle.app, 'p2.example.com')];
      for (const p of placed) expect(p.status).toBe(200);
      expect((await scrape(idle.app)).value('ca_api_orders_pending', { ca: 'child' })).toBe(2);

      const order = await f.store.getOrder(placed[0].body.slug as string);
      await f.store.markOrderFailed(order!.id, 'Could not sign certificate.');
      const after = await scrape(idle.app);
      expect(after.value('ca_api_orders_pending', { ca: 'child' })).toBe(1);
      expect(delta(before, after, 'ca_api_orders_failed_total', { ca: 'child', profile: 'webserver' })).toBe(1);
      // The fixture's router counts the same event: every router reads the one outbox.
      expect((await scrape(f.app)).value('ca_api_orders_failed_total', { ca: 'child' })).toBeGreaterThanOrEqual(1);
      // The fixture's runner, started again, issues the other one.
      await f.runner.start();
      expect((await waitForOrder(f.app, f.ca.serial, placed[1].body.slug, f.auth('alice'))).status).toBe('issued');
      expect((await scrape(idle.app)).value('ca_api_orders_pending', { ca: 'child' })).toBe(0);
    });

    test('a queued order is timed by the runner from its creation to its certificate; two routers keep their own registries', async () => {
      // Never signs in the request: its own default runner, started with it, finishes its orders.
      const queued = buildApp({
        enableRestApi: true,
        store: f.store,
        keyBackends: { default: f.keyBackend },
        orderRunner: undefined,
        signInRequest: false,
        metrics: { enabled: true, eventPollMs: 0 },
      });
      apps.push(queued);
      const before = await scrape(queued.app);
      const placed = await sign(queued.app, 'queued.example.com');
      expect(placed.status).toBe(200);
      expect((await waitForOrder(queued.app, f.ca.serial, placed.body.slug, f.auth('alice'))).status).toBe('issued');
      const after = await scrape(queued.app);
      const latency = 'ca_api_issuance_duration_seconds';
      expect(after.count(latency, { path: 'queued' })).toBe(before.count(latency, { path: 'queued' }) + 1);
      expect(after.count(latency, { path: 'in_request' })).toBe(0);
      expect(delta(before, after, 'ca_api_certificates_issued_total', { ca: 'child', protocol: 'rest' })).toBe(1);
      // The fixture's router timed only its own requests.
      expect((await scrape(f.app)).count(latency, { path: 'queued' })).toBe(0);
    });
  });
});
