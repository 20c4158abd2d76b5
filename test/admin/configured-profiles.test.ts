/**
 * One configuration (docs/reference/environment.md): `CA_PROFILES`, `CA_DEFAULT_PROFILE` and
 * `CA_DEFAULT_EXPIRES` mean the same to the admin interface as to the REST API and `ca-admin`. With an
 * `iot` default profile of 7 days, the Issue page chooses `iot` first and says 7 days, and a
 * certificate signed through the form as it comes (profile preselected, validity empty) is an `iot`
 * certificate of 7 days — as REST's sign without a profile and `ca-admin sign_cert` without
 * `--profile` are. Options the host gives win over the environment, as for `createCaApiRouter`. Each
 * side is the real thing on one store (PGlite, and PostgreSQL with TEST_DATABASE_URL): the admin form
 * over HTTP with a signed-in session, the REST API over HTTP, the CLI in-process; the lifetimes are
 * read back by openssl.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { createCaAdminRouter, createCaApiRouter, OptionsError } from '../../lib';
import { normaliseSerial } from '../../lib/x509/serial-format';
import { issueThroughApi, opensslCsr } from '../api/fixture';
import { cliRunner } from '../cli/helpers';
import { tmpDir } from '../cli/openssl';
import { testDatabaseTargets } from '../helpers/database';
import { ADMIN, adminOn, formToken, setupAdmin, type AdminFixture } from './admin-fixture';

jest.setTimeout(120_000);

const ENV = {
  CA_PROFILES: JSON.stringify({ iot: { description: 'Devices', extensions: { extended_key_usage: { value: ['clientAuth'] } } } }),
  CA_DEFAULT_PROFILE: 'iot',
  CA_DEFAULT_EXPIRES: '7',
};

/** The `<option>` the select starts on. */
function preselected(page: string, select: string): string | null {
  const at = page.indexOf(`<select id="${select}"`);
  const options = page.slice(at, page.indexOf('</select>', at));
  return /<option value="([^"]*)"\s+selected>/.exec(options)?.[1] ?? null;
}

/** notAfter − notBefore in days, as openssl reads the certificate. */
function opensslLifetimeDays(der: Buffer): number {
  const out = execFileSync('openssl', ['x509', '-inform', 'DER', '-noout', '-startdate', '-enddate'], { input: der, encoding: 'utf8' });
  const date = (name: string) => Date.parse(new RegExp(`${name}=(.+)`).exec(out)?.[1] ?? '');
  return (date('notAfter') - date('notBefore')) / 86_400_000;
}

describe.each(testDatabaseTargets())('on $name', (target) => {
  let f: AdminFixture;
  beforeAll(async () => {
    // The REST router and the admin router read the same environment; keys are the fixture's.
    f = await setupAdmin({ env: ENV }, undefined, target, { env: ENV });
  });
  afterAll(async () => {
    await f?.close();
  });

  /** The certificate `serial` as the store keeps it: its profile and, by openssl, its lifetime. */
  async function signed(serial: string): Promise<{ profile: string; days: number }> {
    const cert = await f.api.store.findCertificate(f.api.ca.id, serial);
    if (!cert) throw new Error(`no certificate ${serial}`);
    return { profile: cert.profile, days: opensslLifetimeDays(cert.der) };
  }

  test('the Issue page preselects CA_DEFAULT_PROFILE and shows the CA_DEFAULT_EXPIRES validity', async () => {
    const alice = await f.signIn('alice');
    const page = (await alice.get(`${ADMIN}issue`).expect(200)).text;
    expect(preselected(page, 'profile')).toBe('iot');
    expect(page).toContain('<option value="iot"  selected>iot: Devices (7 days)</option>');
    // Every profile without its own lifetime takes CA_DEFAULT_EXPIRES, the built-in ones too.
    expect(page).toMatch(/<option value="webserver"\s*>webserver: [^<]* \(7 days\)<\/option>/);
    expect(f.router.options.defaultProfile).toBe('iot');
    expect(f.router.options.defaultExpiresMs).toBe(7 * 86_400_000);
  });

  test('the admin form as it comes, REST without a profile and ca-admin without --profile all sign iot for 7 days', async () => {
    const alice = await f.signIn('alice');
    const page = (await alice.get(`${ADMIN}issue`).expect(200)).text;
    const byAdmin = await alice
      .post(`${ADMIN}issue`)
      .type('form')
      .send({
        _csrf: formToken(page),
        ca: f.api.ca.serial,
        profile: preselected(page, 'profile'), // what a browser sends without a change
        csr: opensslCsr('EC', 'admin.iot.example').csr,
        subject: 'CN=admin.iot.example',
        san: 'DNS:admin.iot.example',
        days: '',
        action: 'sign',
      })
      .expect(303);
    const adminSerial = /\/certs\/[0-9A-F]+\/([0-9A-F]+)\/\?issued=1$/.exec(String(byAdmin.headers.location))?.[1] ?? '';

    const restSerial = await issueThroughApi(f.api, opensslCsr('EC', 'rest.iot.example').csr);

    const dir = tmpDir('configured-profiles-');
    const csrFile = path.join(dir, 'cli.csr');
    fs.writeFileSync(csrFile, opensslCsr('EC', 'cli.iot.example').csr);
    const cli = await cliRunner(f.api.store, ENV)(
      ['sign_cert', '--ca', f.api.ca.serial, '--csr', csrFile, '--subject', 'CN=cli.iot.example'],
      {
        keyBackends: [f.api.keyBackend],
      },
    );
    expect(cli).toMatchObject({ code: 0 });
    const cliSerial =
      normaliseSerial(
        execFileSync('openssl', ['x509', '-noout', '-serial'], { input: cli.stdout, encoding: 'utf8' })
          .trim()
          .replace(/^serial=/, ''),
      ) ?? '';

    const expected = { profile: 'iot', days: 7 };
    expect(await signed(adminSerial)).toEqual(expected);
    expect(await signed(restSerial)).toEqual(expected);
    expect(await signed(cliSerial)).toEqual(expected);
  });

  test("the host's options win over the environment, which then does not count for them", async () => {
    const env = { ...ENV, CA_PROFILES: '{not json', CA_DEFAULT_EXPIRES: 'soon' };
    const own = adminOn(f.api, { env, profiles: {}, defaultProfile: 'server', defaultExpires: { days: 30 } });
    try {
      const alice = await own.signIn('alice');
      const page = (await alice.get(`${ADMIN}issue`).expect(200)).text;
      expect(preselected(page, 'profile')).toBe('server');
      expect(page).toMatch(/<option value="server"\s+selected>server: [^<]* \(30 days\)<\/option>/);
      expect(page).not.toContain('value="iot"');
    } finally {
      await own.close();
    }
    // The host's profiles with CA_DEFAULT_PROFILE naming one of them, as for the REST API.
    const withIot = adminOn(f.api, { env: { CA_DEFAULT_PROFILE: 'iot' }, profiles: { iot: {} } });
    expect(withIot.router.options.defaultProfile).toBe('iot');
    await withIot.close();
  });

  test('a bad setting stops the admin router at construction, in the words the REST router uses', () => {
    for (const env of [{ CA_DEFAULT_PROFILE: 'nope' }, { CA_DEFAULT_EXPIRES: '0' }, { CA_PROFILES: '[]' }]) {
      const rest = (() => {
        try {
          createCaApiRouter({ rest: { enabled: true }, store: f.api.store, keyBackends: { default: f.api.keyBackend }, env });
        } catch (e) {
          return e;
        }
        throw new Error('createCaApiRouter accepted it');
      })() as Error;
      expect(rest).toBeInstanceOf(OptionsError);
      const adminError = (() => {
        try {
          createCaAdminRouter({ store: f.api.store, keyBackends: { default: f.api.keyBackend }, env });
        } catch (e) {
          return e;
        }
        throw new Error('createCaAdminRouter accepted it');
      })() as Error;
      expect(adminError).toBeInstanceOf(OptionsError);
      expect(adminError.message).toBe(rest.message.replace(/^createCaApiRouter:/, 'createCaAdminRouter:'));
      expect(adminError.message).toContain(Object.keys(env)[0]);
    }
  });
});
