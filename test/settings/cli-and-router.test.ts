/**
 * `readSettings` (lib/settings): one environment means the same to `ca-admin` and to
 * `createCaApiRouter` — the same profiles (CA_PROFILES, CA_DEFAULT_PROFILE, CA_DEFAULT_EXPIRES), the
 * same ACME switch (CA_ENABLE_ACME, off unless set), the same URL path (CA_URL_PATH, one rule: no
 * certificate names a URL the router refuses) and the same default CA (CA_DEFAULT_CA, else the CA
 * that expires last, ties to the lowest serial). Each side is the real thing: the CLI run in-process,
 * the router mounted in Express and asked over HTTP, both on one PGlite store.
 */
import request from 'supertest';
import { defaultKeyBackend } from '../../adapters/keys/default-backend';
import { initCa } from '../../lib/ca/authorities';
import { profileToJson } from '../../lib/ca/profiles';
import { createApiUser } from '../../lib/accounts/users';
import { CommandContext } from '../../lib/cli/context';
import { createCaApiRouter, createRevocationRouter, OptionsError } from '../../lib';
import { normaliseSerial } from '../../lib/x509/serial-format';
import { cliRunner, TEST_KEK } from '../cli/helpers';
import { opensslCsr, tmpDir } from '../cli/openssl';
import { openTestDatabase, type TestDatabase } from '../helpers/database';
import { authHeader, buildApp, type TestApp } from '../helpers/http';

jest.setTimeout(60_000);

let db: TestDatabase;
let dir: string;
const apps: TestApp[] = [];
beforeAll(async () => {
  db = await openTestDatabase({ name: 'pglite', url: 'memory://' });
  await createApiUser(db.store, 'alice', 'alice-password', {}, { bcryptCost: 4 });
  dir = tmpDir('settings-agree-');
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});
afterAll(async () => {
  await db?.close();
});

/** The router on `env` (and the test store), as a host mounts it. */
function router(env: Record<string, string>): TestApp {
  const app = buildApp({ enableRestApi: true, store: db.store, env: { CA_KEY_ENCRYPTION_KEY: TEST_KEK, ...env } });
  apps.push(app);
  return app;
}

/** What `ca-admin` reads of `env`: the context every command runs in. */
function cliContext(env: Record<string, string>): CommandContext {
  return new CommandContext({ stdout: process.stdout, stderr: process.stderr, env: { CA_KEY_ENCRYPTION_KEY: TEST_KEK, ...env } });
}

const auth = authHeader('alice', 'alice-password');

test('CA_PROFILES, CA_DEFAULT_PROFILE and CA_DEFAULT_EXPIRES: the REST API serves the profiles ca-admin signs with', async () => {
  const env = {
    CA_PROFILES: JSON.stringify({
      device: { description: 'Devices', extensions: { extended_key_usage: { value: ['clientAuth'] } } },
      server: null,
    }),
    CA_DEFAULT_PROFILE: 'device',
    CA_DEFAULT_EXPIRES: '30',
  };
  const cli = cliContext(env);
  const { app, router: r } = router(env);
  const res = await request(app).get('/django_ca/api/profiles/').set(auth);
  expect(res.status).toBe(200);
  expect(res.body).toEqual([...cli.profiles().values()].map(profileToJson));
  expect([...cli.profiles().keys()]).toContain('device');
  expect([...cli.profiles().keys()]).not.toContain('server');
  expect(r.options.defaultProfile).toBe(cli.settings.defaultProfile);
  expect(r.options.defaultProfile).toBe('device');
  expect(r.options.defaultExpiresMs).toBe(30 * 86_400_000);
  // A host's own options still win over the environment, which then does not count for them.
  const hostEnv = { ...env, CA_KEY_ENCRYPTION_KEY: TEST_KEK, CA_PROFILES: '{not json' };
  const own = createCaApiRouter({ store: db.store, env: hostEnv, profiles: {}, defaultProfile: 'webserver' });
  expect(own.options.defaultProfile).toBe('webserver');
  await own.close();
  const withDevice = createCaApiRouter({ store: db.store, env: hostEnv, profiles: { device: {} } });
  expect(withDevice.options.defaultProfile).toBe('device');
  await withDevice.close();
});

test("the revocation router's profiles (the ocsp profile of delegated responders) are ca-admin's: CA_PROFILES, CA_DEFAULT_EXPIRES", async () => {
  const env = { CA_PROFILES: JSON.stringify({ ocsp: { description: 'Responders, 3 days', expires: 3 } }), CA_DEFAULT_EXPIRES: '30' };
  const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: TEST_KEK }) };
  const revocation = createRevocationRouter({ store: db.store, keyBackends, env });
  try {
    const cli = cliContext(env);
    expect([...revocation.options.profiles.values()].map(profileToJson)).toEqual([...cli.profiles().values()].map(profileToJson));
    expect(revocation.options.profiles.get('ocsp')?.expiresMs).toBe(3 * 86_400_000);
    expect(revocation.options.profiles.get('webserver')?.expiresMs).toBe(30 * 86_400_000);
  } finally {
    await revocation.close();
  }
  // A bad one stops it as it stops the others; the host's own profiles win over the variable.
  expect(() => createRevocationRouter({ store: db.store, keyBackends, env: { CA_PROFILES: '{not json' } })).toThrow(OptionsError);
  expect(() => createRevocationRouter({ store: db.store, keyBackends, env: { CA_PROFILES: '{not json' } })).toThrow(
    /^createRevocationRouter: environment variable CA_PROFILES must be JSON/,
  );
  const own = createRevocationRouter({ store: db.store, keyBackends, env: { CA_PROFILES: '{not json' }, profiles: {} });
  expect(own.options.profiles.get('ocsp')?.expiresMs).toBe(100 * 86_400_000);
  await own.close();
});

test('a bad profile setting is the same error for both, naming the variable', async () => {
  const env = { CA_KEY_ENCRYPTION_KEY: TEST_KEK, CA_DEFAULT_PROFILE: 'nope' };
  const cli = await cliRunner(db.store, env)(['list_cas']);
  expect(() => createCaApiRouter({ store: db.store, env })).toThrow(`createCaApiRouter: ${cli.stderr.slice('Error: '.length, -1)}`);
  expect(cli.stderr).toMatch(
    /^Error: environment variable CA_DEFAULT_PROFILE must name a configured profile \(got "nope"; configured: client, server, webserver, enduser, ocsp\)\n$/,
  );
});

test('CA_ENABLE_ACME: off for both when unset, on for both when true', async () => {
  const serving = async (env: Record<string, string>) => (await request(router(env).app).get('/django_ca/acme/directory/')).status !== 299; // 299: passed on to the host
  const offered = async (env: Record<string, string>) =>
    (await cliRunner(db.store, env)(['init_ca', '--help'])).stdout.includes('--acme-enable');

  expect(cliContext({}).settings.enableAcme).toBe(false);
  expect([await offered({}), await serving({})]).toEqual([false, false]);
  expect([await offered({ CA_ENABLE_ACME: 'true' }), await serving({ CA_ENABLE_ACME: 'true' })]).toEqual([true, true]);
  expect([await offered({ CA_ENABLE_ACME: 'off' }), await serving({ CA_ENABLE_ACME: 'off' })]).toEqual([false, false]);
});

test('CA_URL_PATH: init_ca refuses what the router refuses, and the router serves the URLs init_ca writes', async () => {
  const bad = { CA_URL_PATH: '/pki/' };
  const refused = await cliRunner(db.store, bad)(['init_ca', '--default-hostname', 'ca.example.com', 'BadPath', 'CN=BadPath']);
  let routerError = '';
  try {
    createCaApiRouter({ enableRestApi: true, store: db.store, env: bad });
  } catch (e) {
    routerError = (e as Error).message;
  }
  expect(routerError).toMatch(/^createCaApiRouter: environment variable CA_URL_PATH must not start with '\/'/);
  expect(refused).toMatchObject({ code: 1, stdout: '', stderr: `Error: ${routerError.slice('createCaApiRouter: '.length)}\n` });
  expect(await db.store.findCaByName('BadPath')).toBeNull();

  const good = { CA_URL_PATH: 'pki/' };
  const made = await cliRunner(
    db.store,
    good,
  )(['init_ca', '--key-type', 'EC', '--default-hostname', 'ca.example.com', 'GoodPath', 'CN=GoodPath']);
  expect(made.code).toBe(0);
  const ca = await db.store.findCaByName('GoodPath');
  const issuer = (ca?.signAuthorityInformationAccess?.value as { access_location: { value: string } }[])[1].access_location.value;
  expect(issuer).toBe(`http://ca.example.com/pki/issuer/${ca?.serial}.der`);
  const res = await request(router(good).app).get(new URL(issuer).pathname);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/pkix-cert');
});

test('the default CA: sign_cert without --ca and ACME directory/ choose the same CA — on equal expiry, the lowest serial', async () => {
  // A fresh database: two ACME-enabled roots made at the same instant, for the same time — a tie.
  const own = await openTestDatabase({ name: 'pglite', url: 'memory://' });
  try {
    const keyBackends = [defaultKeyBackend({ keyEncryptionKey: TEST_KEK })];
    const now = new Date(Date.now() - 60_000);
    const made = [];
    for (const name of ['Tie A', 'Tie B', 'Tie C']) {
      made.push(
        await initCa({
          store: own.store,
          keyBackends,
          name,
          subject: [{ oid: 'CN', value: name }],
          keyType: 'EC',
          now,
          expiresDays: 365,
          acme: { acmeEnabled: true },
        }),
      );
    }
    expect(new Set(made.map((ca) => ca.notAfter.getTime())).size).toBe(1);
    const lowest = made.map((ca) => ca.serial).sort((a, b) => a.length - b.length || (a < b ? -1 : 1))[0];

    const csr = opensslCsr(dir, 'tie');
    const signed = await cliRunner(own.store)(['sign_cert', '--csr', csr, '--subject', 'CN=tie.example.com']);
    expect(signed).toMatchObject({ code: 0, stderr: expect.stringContaining('the usable CA that expires last') });
    const cliChoice = normaliseSerial(/^No --ca given: signing with Tie [ABC] \(([0-9A-F:]+)\)/.exec(signed.stderr)?.[1] ?? '');

    const app = buildApp({ store: own.store, env: { CA_KEY_ENCRYPTION_KEY: TEST_KEK, CA_ENABLE_ACME: 'true' } });
    apps.push(app);
    const directory = await request(app.app).get('/django_ca/acme/directory/');
    expect(directory.status).toBe(200);
    const acmeChoice = /\/acme\/([0-9A-F]+)\/new-nonce\//.exec((directory.body as { newNonce: string }).newNonce)?.[1];

    expect(cliChoice).toBe(lowest);
    expect(acmeChoice).toBe(lowest);

    // CA_DEFAULT_CA names the same CA for both, by name as by serial.
    for (const named of ['Tie C', made[2].serial]) {
      const env = { CA_DEFAULT_CA: named };
      const byCli = await cliRunner(own.store, env)(['sign_cert', '--csr', csr, '--subject', 'CN=named.example.com']);
      expect(byCli.stderr).toContain(`signing with Tie C (`);
      const withEnv = buildApp({ store: own.store, env: { CA_KEY_ENCRYPTION_KEY: TEST_KEK, CA_ENABLE_ACME: 'true', ...env } });
      apps.push(withEnv);
      const res = await request(withEnv.app).get('/django_ca/acme/directory/');
      expect((res.body as { newNonce: string }).newNonce).toContain(`/acme/${made[2].serial}/new-nonce/`);
    }
  } finally {
    for (const app of apps.splice(0)) await app.close();
    await own.close();
  }
});
