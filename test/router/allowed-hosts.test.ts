/**
 * `allowedHosts` of `createCaApiRouter` (docs/reference/options.md; Django's ALLOWED_HOSTS): the router answers
 * only the hosts it is told, since every absolute URL it hands out (the ACME directory's and every
 * URL after it) is built from the request's host. Real store (PGlite), real ACME module, raw `Host`
 * headers through supertest.
 */
import express from 'express';
import request from 'supertest';
import { challengeValidator } from '../../adapters/acme-validation';
import { createCaApiRouter, defaultKeyBackend, initCa, OptionsError, type CaApiRouter, type CaRecord } from '../../lib';
import { KEK } from '../acme/fixture';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';

const PGLITE = testDatabaseTargets()[0];
let db: TestDatabase;
let ca: CaRecord;
const routers: CaApiRouter[] = [];
const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: KEK }) };

beforeAll(async () => {
  db = await openTestDatabase(PGLITE);
  const base = { store: db.store, keyBackends, keyType: 'EC' as const, defaultHostname: 'ca.example.com' };
  const root = await initCa({ ...base, name: 'root', subject: [{ oid: 'CN', value: 'Hosts Root' }], pathLength: 1 });
  ca = await initCa({ ...base, name: 'issuing', subject: [{ oid: 'CN', value: 'Hosts Issuing' }], parent: root, expiresDays: 30 });
  ca = await db.store.updateCa(ca.id, { acmeEnabled: true, acmeRequiresContact: false });
});
afterAll(async () => {
  for (const router of routers) await router.close();
  await db.close();
});

/** A host app with the router (REST API, revocation endpoints, ACME) and the given options. */
function app(options: { allowedHosts?: string[]; env?: Record<string, string> } = {}, trustProxy?: string): express.Express {
  const router = createCaApiRouter({
    enableRestApi: true,
    store: db.store,
    keyBackends,
    // No validation runs here: a validator that could reach nothing.
    acme: { enabled: true, validator: challengeValidator({ dnsServers: ['127.0.0.1:9'] }) },
    env: options.env ?? {},
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
  });
  routers.push(router);
  const host = express();
  if (trustProxy) host.set('trust proxy', trustProxy);
  host.use(router);
  return host;
}

const directoryPath = () => `/django_ca/acme/directory/${ca.serial}/`;

describe('allowedHosts', () => {
  test('absent: every host is answered, and the ACME directory is built from whatever Host the client sent', async () => {
    const res = await request(app()).get(directoryPath()).set('Host', 'evil.example');
    expect(res.status).toBe(200);
    expect(res.body.newNonce).toMatch(/^http:\/\/evil\.example\//);
  });

  test('another host: a 400 on every module (JSON for the REST API and the revocation endpoints, problem+json for ACME)', async () => {
    const served = app({ allowedHosts: ['ca.example.com'] });
    const acme = await request(served).get(directoryPath()).set('Host', 'evil.example');
    expect(acme.status).toBe(400);
    expect(acme.headers['content-type']).toBe('application/problem+json');
    expect(acme.body).toMatchObject({ type: 'urn:ietf:params:acme:error:malformed', status: 400 });
    expect(acme.body.detail).toContain('"evil.example"');
    expect(JSON.stringify(acme.body)).not.toContain('http://evil.example');

    // A JWS POST is refused before its signature or url matters.
    const post = await request(served)
      .post(`/django_ca/acme/${ca.serial}/new-account/`)
      .set('Host', 'evil.example')
      .set('Content-Type', 'application/jose+json')
      .send('{}');
    expect(post.status).toBe(400);
    expect(post.headers['content-type']).toBe('application/problem+json');

    const rest = await request(served).get('/django_ca/api/ca/').set('Host', 'evil.example');
    expect(rest.status).toBe(400);
    expect(rest.headers['content-type']).toMatch(/^application\/json/);
    expect(rest.body.detail).toContain('"evil.example"');

    const crl = await request(served).get(`/django_ca/crl/ca/${ca.serial}/`).set('Host', 'evil.example');
    expect(crl.status).toBe(400);
    expect(crl.headers['content-type']).toMatch(/^application\/json/);

    // Paths outside the router still reach the host app.
    expect((await request(served).get('/elsewhere').set('Host', 'evil.example')).status).toBe(404);
  });

  test('an allowed host: compared without the port, case-insensitively, with or without a trailing dot', async () => {
    const served = app({ allowedHosts: ['ca.example.com'] });
    for (const host of ['ca.example.com', 'CA.Example.COM:8443', 'ca.example.com.']) {
      const res = await request(served).get(directoryPath()).set('Host', host);
      expect({ host, status: res.status }).toEqual({ host, status: 200 });
    }
    expect((await request(served).get('/django_ca/api/ca/').set('Host', 'ca.example.com:8000')).status).toBe(401);
    expect((await request(served).get(`/django_ca/crl/ca/${ca.serial}/`).set('Host', 'ca.example.com')).status).toBe(200);
    expect((await request(served).get(directoryPath()).set('Host', 'sub.ca.example.com')).status).toBe(400);
  });

  test("'.example.com' allows the domain and its subdomains (as Django), not names that merely end alike; '*' allows all", async () => {
    const served = app({ allowedHosts: ['.example.com', '192.0.2.1', '[2001:db8::1]'] });
    const status = async (host: string) => (await request(served).get(directoryPath()).set('Host', host)).status;
    expect(await status('example.com')).toBe(200);
    expect(await status('a.b.example.com')).toBe(200);
    expect(await status('badexample.com')).toBe(400);
    expect(await status('example.com.evil')).toBe(400);
    expect(await status('192.0.2.1:80')).toBe(200);
    expect(await status('[2001:db8::1]:443')).toBe(200);
    expect(await status('[2001:db8::2]')).toBe(400);
    expect(
      (
        await request(app({ allowedHosts: ['ca.example.com', '*'] }))
          .get(directoryPath())
          .set('Host', 'any.where')
      ).status,
    ).toBe(200);
  });

  test("behind a trusted proxy X-Forwarded-Host is the host; from an untrusted one it is not (Express's trust proxy)", async () => {
    const trusted = app({ allowedHosts: ['ca.example.com'] }, 'loopback');
    const forwarded = await request(trusted)
      .get(directoryPath())
      .set('Host', 'internal:8000')
      .set('X-Forwarded-Host', 'ca.example.com')
      .set('X-Forwarded-Proto', 'https');
    expect(forwarded.status).toBe(200);
    expect(forwarded.body.newNonce).toMatch(/^https:\/\/ca\.example\.com\//);
    const forged = await request(trusted).get(directoryPath()).set('Host', 'ca.example.com').set('X-Forwarded-Host', 'evil.example');
    expect(forged.status).toBe(400);

    const untrusted = app({ allowedHosts: ['ca.example.com'] });
    const ignored = await request(untrusted).get(directoryPath()).set('Host', 'evil.example').set('X-Forwarded-Host', 'ca.example.com');
    expect(ignored.status).toBe(400);
  });

  test('CA_ALLOWED_HOSTS (comma-separated) when the option is absent; the option wins', async () => {
    const fromEnv = app({ env: { CA_ALLOWED_HOSTS: ' ca.example.com , .internal ' } });
    expect((await request(fromEnv).get(directoryPath()).set('Host', 'ca.internal')).status).toBe(200);
    expect((await request(fromEnv).get(directoryPath()).set('Host', 'evil.example')).status).toBe(400);
    const optionWins = app({ allowedHosts: ['evil.example'], env: { CA_ALLOWED_HOSTS: 'ca.example.com' } });
    expect((await request(optionWins).get(directoryPath()).set('Host', 'evil.example')).status).toBe(200);
  });

  test.each([
    ['a string', 'ca.example.com', /must be an array/],
    ['an empty list', [], /at least one host/],
    ['a URL', ['https://ca.example.com'], /"https:\/\/ca.example.com" is not a host name/],
    ['a port', ['ca.example.com:8000'], /without scheme or port/],
    ['a path', ['ca.example.com/acme'], /is not a host name/],
    ['a number', [42], /42 is not a host name/],
  ])('a mistake is an OptionsError at construction: %s', (_what, allowedHosts, message) => {
    const make = () =>
      createCaApiRouter({ enableRestApi: true, store: db.store, keyBackends, env: {}, allowedHosts: allowedHosts as string[] });
    expect(make).toThrow(OptionsError);
    expect(make).toThrow(message);
  });

  test('CA_ALLOWED_HOSTS with a bad entry is an OptionsError naming the variable', () => {
    expect(() =>
      createCaApiRouter({ enableRestApi: true, store: db.store, keyBackends, env: { CA_ALLOWED_HOSTS: 'ok.example, bad host' } }),
    ).toThrow(/CA_ALLOWED_HOSTS: "bad host" is not a host name/);
  });

  test('the resolved option is lower case, IPv6 in brackets; `*` or absent is null (every host)', () => {
    const resolved = (allowedHosts?: string[]) => {
      const router = createCaApiRouter({
        enableRestApi: true,
        store: db.store,
        keyBackends,
        env: {},
        ...(allowedHosts ? { allowedHosts } : {}),
      });
      routers.push(router);
      return router.options.allowedHosts;
    };
    expect(resolved(['CA.Example.com', '::1', '.Internal'])).toEqual(['ca.example.com', '[::1]', '.internal']);
    expect(resolved(['*'])).toBeNull();
    expect(resolved()).toBeNull();
  });
});
