/**
 * Per-CA authorization (docs/reference/differences.md D23): permissions granted for every CA or for named CAs only, through
 * `createApiUser`, `setApiUserPermissions` and `ca-admin create_api_user --ca`, on a real store and the
 * default permission checker. Every CA-scoped endpoint is tried by every user on every CA; the
 * expected answer is derived from the user's configuration: 403 without the grant (whether the CA
 * exists or not), the endpoint's success with it. `GET /ca/` lists only the CAs the user may view.
 */
import request from 'supertest';
import { createApiUser, setApiUserPermissions, type ApiUserPermissions } from '../../lib/accounts/users';
import { ALL_PERMISSIONS, type ApiPermission, type CaRecord } from '../../lib/ports';
import { serialToColons } from '../../lib/x509/serial-format';
import { cliRunner } from '../cli/helpers';
import { API, opensslCsr, PASSWORD, setupApi, waitForOrder, type ApiFixture } from './fixture';

type CaName = 'root' | 'web' | 'mail';
const CA_NAMES: readonly CaName[] = ['root', 'web', 'mail'];
/** Per permission: every CA, some CAs, or none. */
type GrantSpec = Record<ApiPermission, 'all' | readonly CaName[]>;

let f: ApiFixture;
let cas: Record<CaName, CaRecord>;
let hidden: CaRecord;
let csr: string;

const FLAGS: Record<ApiPermission, keyof ApiUserPermissions> = {
  view_certificateauthority: 'viewCertificateAuthority',
  change_certificateauthority: 'changeCertificateAuthority',
  sign_certificate: 'signCertificate',
  view_certificate: 'viewCertificate',
  revoke_certificate: 'revokeCertificate',
};

const every = (scope: 'all' | readonly CaName[]): GrantSpec => Object.fromEntries(ALL_PERMISSIONS.map((p) => [p, scope])) as GrantSpec;

/** The users of the matrix and what each may do. */
const USERS: Record<string, GrantSpec> = {
  alice: every('all'), // the fixture's user: global grants, as upstream
  web_signer: every(['web']),
  root_admin: every(['root']),
  mixed: {
    view_certificateauthority: 'all',
    change_certificateauthority: [],
    sign_certificate: ['web'],
    view_certificate: ['web', 'mail'],
    revoke_certificate: ['mail'],
  },
};

const allows = (spec: GrantSpec, permission: ApiPermission, ca: CaName): boolean => {
  const scope = spec[permission];
  return scope === 'all' || scope.includes(ca);
};

/** A spec as `createApiUser` flags: per-flag serial lists, `false` for none. */
function flagsOf(spec: GrantSpec): ApiUserPermissions {
  const flags: ApiUserPermissions = {};
  for (const p of ALL_PERMISSIONS) {
    const scope = spec[p];
    (flags as Record<string, unknown>)[FLAGS[p]] = scope === 'all' ? true : scope.length ? scope.map((n) => cas[n].serial) : false;
  }
  return flags;
}

const as = (user: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${PASSWORD}`).toString('base64')}` });
const get = (path: string, user: string) => request(f.app).get(`${API}${path}`).set(as(user));
const post = (path: string, user: string, body: unknown) =>
  request(f.app)
    .post(`${API}${path}`)
    .set(as(user))
    .send(body as object);
const websiteOf = (username: string, ca: CaName) => `https://${username.replace(/_/g, '-')}.${ca}.example.com/`;
const names = (res: request.Response): string[] => (res.body as { name: string }[]).map((c) => c.name);

/** Sign as alice on `ca` and wait for the certificate; its serial. */
async function issue(ca: CaRecord, cn: string): Promise<string> {
  const res = await post(`/ca/${ca.serial}/sign/`, 'alice', { csr, subject: [{ oid: 'CN', value: cn }] });
  expect(res.status).toBe(200);
  const done = await waitForOrder(f.app, ca.serial, res.body.slug, as('alice'));
  expect(done.status).toBe('issued');
  return done.serial as string;
}

beforeAll(async () => {
  f = await setupApi();
  await f.store.updateCa(f.root.id, { apiEnabled: true });
  const mail = await f.makeCa({ name: 'mail', apiEnabled: true });
  hidden = await f.makeCa({ name: 'hidden', apiEnabled: false });
  cas = { root: (await f.store.getCa(f.root.id)) as CaRecord, web: f.ca, mail };
  csr = opensslCsr('EC').csr;
  for (const [username, spec] of Object.entries(USERS)) {
    if (username !== 'alice') await createApiUser(f.store, username, PASSWORD, flagsOf(spec), { bcryptCost: 4 });
  }
});
afterAll(() => f.close());

describe('every CA-scoped endpoint allows and denies exactly as configured', () => {
  test.each(Object.keys(USERS))('%s', async (username) => {
    const spec = USERS[username];
    const expected: Record<string, Record<string, number>> = {};
    const actual: Record<string, Record<string, number>> = {};
    for (const name of CA_NAMES) {
      const ca = cas[name];
      const s = ca.serial;
      const base = await issue(ca, `${username}-${name}.example.com`);
      const alicesOrder = (await post(`/ca/${s}/sign/`, 'alice', { csr, subject: [{ oid: 'CN', value: 'a.example.com' }] })).body.slug;
      const expect200 = (p: ApiPermission) => (allows(spec, p, name) ? 200 : 403);
      expected[name] = {
        view_ca: expect200('view_certificateauthority'),
        update_ca: expect200('change_certificateauthority'),
        sign: expect200('sign_certificate'),
        get_order: expect200('sign_certificate'),
        list_certs: expect200('view_certificate'),
        view_cert: expect200('view_certificate'),
        resign: expect200('sign_certificate'),
        revoke: expect200('revoke_certificate'),
      };
      const row: Record<string, number> = {};
      row.view_ca = (await get(`/ca/${s}/`, username)).status;
      row.update_ca = (
        await request(f.app)
          .put(`${API}/ca/${s}/`)
          .set(as(username))
          .send({ website: websiteOf(username, name) })
      ).status;
      const signed = await post(`/ca/${s}/sign/`, username, { csr, subject: [{ oid: 'CN', value: 'u.example.com' }] });
      row.sign = signed.status;
      // Its own order when it could sign; else alice's, which exists: the 403 comes before any lookup.
      row.get_order = (await get(`/ca/${s}/orders/${signed.status === 200 ? signed.body.slug : alicesOrder}/`, username)).status;
      const listed = await get(`/ca/${s}/certs/`, username);
      row.list_certs = listed.status;
      if (listed.status === 200)
        expect((listed.body as { certificate: { serial: string } }[]).map((c) => c.certificate.serial)).toContain(base);
      row.view_cert = (await get(`/ca/${s}/certs/${base}/`, username)).status;
      row.resign = (await post(`/ca/${s}/certs/${base}/resign/`, username, {})).status;
      // A fresh certificate to revoke when the user may: the base one stays valid for the others.
      const victim = allows(spec, 'revoke_certificate', name) ? await issue(ca, `victim-${username}.example.com`) : base;
      row.revoke = (await post(`/ca/${s}/certs/${victim}/revoke/`, username, {})).status;
      actual[name] = row;
    }
    expect(actual).toEqual(expected);
    // A denied update changed nothing; an allowed one is stored.
    for (const name of CA_NAMES) {
      const website = (await f.store.getCa(cas[name].id))?.website;
      expect(website === websiteOf(username, name)).toBe(allows(spec, 'change_certificateauthority', name));
    }
  });

  test('denials happen before the CA is looked up: a limited user cannot tell a missing CA from a forbidden one', async () => {
    const missing = 'ABCDEF0123';
    expect((await get(`/ca/${missing}/`, 'web_signer')).status).toBe(403);
    expect((await get(`/ca/${cas.mail.serial}/`, 'web_signer')).status).toBe(403);
    expect((await post(`/ca/${missing}/sign/`, 'web_signer', { csr, subject: [] })).status).toBe(403);
    // A user with a global grant learns that it does not exist, as upstream.
    expect((await get(`/ca/${missing}/`, 'alice')).status).toBe(404);
  });

  test('a grant on a CA that is not API-enabled still finds nothing (404); without the grant it is a 403', async () => {
    await createApiUser(f.store, 'hidden_viewer', PASSWORD, { cas: [hidden.serial] }, { bcryptCost: 4 });
    expect((await get(`/ca/${hidden.serial}/`, 'hidden_viewer')).status).toBe(404);
    expect((await get(`/ca/${hidden.serial}/`, 'web_signer')).status).toBe(403);
    expect((await get('/ca/', 'hidden_viewer')).body).toEqual([]);
  });

  test('serials in grants match like serials in paths: colons, lower case and leading zeros (D7)', async () => {
    const colons = serialToColons(cas.web.serial).toLowerCase();
    expect((await get(`/ca/${colons}/`, 'web_signer')).status).toBe(200);
    expect((await get(`/ca/000${cas.web.serial.toLowerCase()}/`, 'web_signer')).status).toBe(200);
  });
});

describe('GET /ca/ shows only the CAs the user may view', () => {
  test.each(Object.keys(USERS))('%s', async (username) => {
    const res = await get('/ca/', username);
    expect(res.status).toBe(200);
    const visible = CA_NAMES.filter((n) => allows(USERS[username], 'view_certificateauthority', n));
    // In ascending id order, like every list (docs/COMPATIBILITY.md §1.6).
    const byId = visible.map((n) => cas[n]).sort((a, b) => a.id - b.id);
    expect(names(res)).toEqual(byId.map((ca) => ca.name));
  });

  test('pages are cut after filtering: limit and cursor walk the visible CAs only (D14)', async () => {
    await createApiUser(f.store, 'pager', PASSWORD, { cas: [cas.mail.serial, cas.root.serial] }, { bcryptCost: 4 });
    const first = await get('/ca/?limit=1', 'pager');
    expect(names(first)).toEqual(['root']);
    const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.link);
    expect(link).not.toBeNull();
    const next = await request(f.app)
      .get((link as RegExpExecArray)[1])
      .set(as('pager'));
    expect(names(next)).toEqual(['mail']);
    expect(next.headers.link).toBeUndefined();
  });

  test('without view_certificateauthority on any CA the list is a 403; a grant on some CA opens the profiles', async () => {
    await createApiUser(f.store, 'signer_only', PASSWORD, { viewCertificateAuthority: false, cas: [cas.web.serial] }, { bcryptCost: 4 });
    expect((await get('/ca/', 'signer_only')).status).toBe(403);
    expect((await get('/profiles/', 'signer_only')).status).toBe(200);
    expect((await get('/profiles/', 'root_admin')).status).toBe(200);
  });
});

describe('a changed grant takes effect on the next request', () => {
  test('setApiUserPermissions moves a user from one CA to another, then to all', async () => {
    await createApiUser(f.store, 'mover', PASSWORD, { cas: [cas.web.serial] }, { bcryptCost: 4 });
    expect((await get(`/ca/${cas.web.serial}/`, 'mover')).status).toBe(200); // now cached by the router
    expect((await get(`/ca/${cas.mail.serial}/`, 'mover')).status).toBe(403);
    expect(names(await get('/ca/', 'mover'))).toEqual(['child']); // the web CA's name

    await setApiUserPermissions(f.store, 'mover', { cas: [cas.mail.serial] });
    expect((await get(`/ca/${cas.web.serial}/`, 'mover')).status).toBe(403);
    expect((await get(`/ca/${cas.mail.serial}/`, 'mover')).status).toBe(200);
    expect(names(await get('/ca/', 'mover'))).toEqual(['mail']);

    await setApiUserPermissions(f.store, 'mover', {});
    expect(names(await get('/ca/', 'mover'))).toEqual(['root', 'child', 'mail']);
    expect((await get(`/ca/${cas.web.serial}/`, 'mover')).status).toBe(200);
  });

  test('an unknown CA in a grant is refused and changes nothing', async () => {
    await expect(setApiUserPermissions(f.store, 'web_signer', { cas: ['ABCDEF0123'] })).rejects.toMatchObject({ code: 'not-found' });
    await expect(setApiUserPermissions(f.store, 'web_signer', { cas: ['not hex'] })).rejects.toMatchObject({ code: 'invalid' });
    await expect(createApiUser(f.store, 'ghost', PASSWORD, { signCertificate: [] })).rejects.toMatchObject({ code: 'invalid' });
    expect(await f.store.findUser('ghost')).toBeNull();
    expect((await get(`/ca/${cas.web.serial}/`, 'web_signer')).status).toBe(200);
    expect((await get(`/ca/${cas.mail.serial}/`, 'web_signer')).status).toBe(403);
  });
});

describe('ca-admin', () => {
  const cli = () => cliRunner(f.store);

  test('create_api_user --ca (repeatable, serial or name) limits the user to those CAs', async () => {
    const r = await cli()([
      'create_api_user',
      'carol',
      '--password',
      PASSWORD,
      '--ca',
      serialToColons(cas.web.serial),
      '--ca',
      'mail',
      '--all-permissions',
      '--no-revoke-certificate',
    ]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect((await get(`/ca/${cas.web.serial}/`, 'carol')).status).toBe(200);
    expect((await get(`/ca/${cas.mail.serial}/`, 'carol')).status).toBe(200);
    expect((await get(`/ca/${cas.root.serial}/`, 'carol')).status).toBe(403);
    expect(names(await get('/ca/', 'carol'))).toEqual(['child', 'mail']);
    const victim = await issue(cas.web, 'carol-victim.example.com');
    expect((await post(`/ca/${cas.web.serial}/certs/${victim}/revoke/`, 'carol', {})).status).toBe(403);

    const view = await cli()(['view_api_user', 'carol']);
    expect(view.code).toBe(0);
    const lines = view.stdout.trim().split('\n');
    expect(lines[0]).toBe('Username: carol');
    const both = [cas.web, cas.mail]
      .sort((a, b) => (a.serial < b.serial ? -1 : 1))
      .map((ca) => `${serialToColons(ca.serial)} - ${ca.name}`)
      .join(', ');
    expect(lines).toContain(`sign_certificate: ${both}`);
    expect(lines).toContain('revoke_certificate: -');
  });

  test('create_api_user without --ca grants every CA, as upstream', async () => {
    expect((await cli()(['create_api_user', 'dave', '--all-permissions', '--password', PASSWORD])).code).toBe(0);
    expect(names(await get('/ca/', 'dave'))).toEqual(['root', 'child', 'mail']);
    expect((await cli()(['view_api_user', 'dave'])).stdout).toContain('sign_certificate: all CAs');
  });

  test('an unknown --ca is an error and creates no user', async () => {
    const r = await cli()(['create_api_user', 'erin', '--password', PASSWORD, '--ca', 'no-such-ca']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('no-such-ca: Certificate authority not found.');
    expect(await f.store.findUser('erin')).toBeNull();
  });

  test('set_api_user_permissions replaces the grants; the next request sees them', async () => {
    expect((await get(`/ca/${cas.root.serial}/`, 'carol')).status).toBe(403);
    const r = await cli()(['set_api_user_permissions', 'carol', '--ca', 'root', '--all-permissions', '--no-sign-certificate']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect((await get(`/ca/${cas.root.serial}/`, 'carol')).status).toBe(200);
    expect((await get(`/ca/${cas.web.serial}/`, 'carol')).status).toBe(403);
    expect((await post(`/ca/${cas.root.serial}/sign/`, 'carol', { csr, subject: [] })).status).toBe(403);
    expect((await cli()(['set_api_user_permissions', 'nobody'])).stderr).toContain('nobody: User not found.');
  });
});
