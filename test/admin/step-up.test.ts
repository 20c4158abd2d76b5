/**
 * Who may sign in to the admin interface and when it asks for the password again (docs/guides/admin-interface.md):
 * the global `use_admin` permission (without it, the wrong password's answer), and the
 * step-up — every route the table marks sensitive refuses a session whose password is older than
 * `session.stepUpMs`, changes nothing and sends the user to `reauth`, which goes through the login
 * limiter and starts a new session.
 */
import { randomBytes } from 'crypto';
import request from 'supertest';
import { envKekSecretBox } from '../../adapters/keys/secret-box';
import { loginAttemptLimiter } from '../../adapters/auth/login-limiter';
import { MIGRATIONS_TABLE, migrationSource } from '../../adapters/store/knex/migrations';
import { createApiUser, createCaAdminRouter, OptionsError } from '../../lib';
import { ADMIN_ROUTES } from '../../lib/admin/routes';
import type { AcmeStore, CertificateRecord, EventLog } from '../../lib/ports';
import { issueThroughApi, opensslCsr, PASSWORD } from '../api/fixture';
import { cliRunner } from '../cli/helpers';
import { ADMIN, adminOn, formToken, setupAdmin, type AdminFixture } from './admin-fixture';

const WRONG = 'Wrong username or password.';
/** Longer ago than the default window of 5 minutes. */
const STALE = () => new Date(Date.now() - 10 * 60_000);

let f: AdminFixture;
let cert: CertificateRecord;
let webhookId: string;

const events = () => f.api.store as unknown as EventLog;
const cookieOf = (res: request.Response): string | undefined => /ca_admin=([\w-]+)/.exec(String(res.headers['set-cookie']))?.[1];
const certPath = (c: CertificateRecord) => `${ADMIN}certs/${f.api.ca.serial}/${c.serial}/`;
const reauthTo = (next: string) => `${ADMIN}reauth?${new URLSearchParams({ next })}`;

/** Sign in by the form; the agent (cookies kept) and the session's token. */
async function signInWithToken(username: string): Promise<{ agent: ReturnType<typeof request.agent>; token: string }> {
  const agent = request.agent(f.app);
  const form = await agent.get(`${ADMIN}login`).expect(200);
  const res = await agent
    .post(`${ADMIN}login`)
    .type('form')
    .send({ _csrf: formToken(form.text), username, password: PASSWORD })
    .expect(303);
  return { agent, token: cookieOf(res) as string };
}

/** Move the step-up time of every session of `username` back beyond the window. */
async function makeStale(username: string): Promise<void> {
  const user = await f.api.store.findUser(username);
  await f.api.db.knex('ca_api_admin_sessions').where({ user_id: user?.id }).update({ step_up_at: STALE() });
}

async function newCertificate(): Promise<CertificateRecord> {
  const serial = await issueThroughApi(f.api, opensslCsr('EC').csr);
  return (await f.api.store.findCertificate(f.api.ca.id, serial)) as CertificateRecord;
}

beforeAll(async () => {
  f = await setupAdmin({
    loginLimiter: loginAttemptLimiter({ maxFailuresPerUser: 3, maxFailuresPerAddress: 1000 }),
    webhookSecrets: envKekSecretBox({ CA_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') }) ?? undefined,
  });
  const all = { useAdmin: true, viewAuditLog: true, manageWebhooks: true, manageUsers: true };
  await createApiUser(f.api.store, 'ops', PASSWORD, all, { bcryptCost: 4 });
  await createApiUser(f.api.store, 'machine', PASSWORD, {}, { bcryptCost: 4 }); // the five of the REST API, no use_admin
  cert = await newCertificate();
  // A webhook endpoint for the actions on one.
  const { agent } = await signInWithToken('ops');
  const page = await agent.get(`${ADMIN}webhooks/`).expect(200);
  await agent
    .post(`${ADMIN}webhooks/`)
    .type('form')
    .send({ _csrf: formToken(page.text, `${ADMIN}webhooks/`), url: 'https://hooks.example.com/ca', types: 'certificate.revoked' })
    .expect(200);
  webhookId = String((await f.api.db.knex('ca_api_webhook_endpoints').first('id')).id);
  // An enrolment endpoint for the actions on one.
  await cliRunner(f.api.store)(['create_enrolment_endpoint', 'scep', 'step-up-phones', '--ca', f.api.ca.serial]);
}, 120_000);

afterAll(async () => {
  await f?.close();
});

describe('use_admin', () => {
  test('without it the right password gets the wrong password’s answer, uncounted; `--use-admin` lets the user in, taking it away ends the session', async () => {
    const agent = request.agent(f.app);
    const attempt = async (password: string) => {
      const form = await agent.get(`${ADMIN}login`).expect(200);
      return agent
        .post(`${ADMIN}login`)
        .type('form')
        .send({ _csrf: formToken(form.text), username: 'machine', password });
    };
    const wrong = await attempt('not the password');
    // More sign-ins with the right password than the limiter allows failures (3): never 429, never a session.
    for (let i = 0; i < 4; i++) {
      const right = await attempt(PASSWORD);
      expect([right.status, right.text.includes(WRONG), cookieOf(right)]).toEqual([wrong.status, true, undefined]);
    }
    expect(wrong.status).toBe(400);

    const cli = cliRunner(f.api.store);
    expect((await cli(['set_api_user_permissions', 'machine', '--use-admin'])).code).toBe(0);
    const machine = await f.signIn('machine');
    await machine.get(ADMIN).expect(200);
    // Replaced without the flag: use_admin is gone and so is the session.
    expect((await cli(['set_api_user_permissions', 'machine'])).code).toBe(0);
    expect((await machine.get(ADMIN).expect(303)).headers.location).toMatch(new RegExp(`^${ADMIN}login\\?`));
    await expect(f.signIn('machine')).rejects.toThrow(/sign-in of machine: 400/);
  });

  test('the users page grants it (unchecked for a new user) and shows it', async () => {
    const { agent } = await signInWithToken('ops');
    const list = await agent.get(`${ADMIN}users/`).expect(200);
    expect(list.text).toMatch(/<input type="checkbox" id="use_admin-on" name="use_admin" value="on"\s*\/>/);
    // Least privilege: the new-user form ticks nothing (no permission of the REST API either).
    expect([...list.text.matchAll(/<input type="checkbox"[^>]*>/g)].map((m) => m[0]).filter((box) => /\schecked/.test(box))).toEqual([]);
    const token = formToken(list.text, `${ADMIN}users/`);
    const create = (username: string, extra: string) =>
      agent
        .post(`${ADMIN}users/`)
        .type('form')
        .send(`_csrf=${token}&username=${username}&password=correct+horse&password2=correct+horse&view_certificate=on${extra}`)
        .expect(303);
    await create('person', '&use_admin=on');
    await create('robot', '');
    await expect(f.signIn('person')).resolves.toBeDefined();
    await expect(f.signIn('robot')).rejects.toThrow(/sign-in of robot: 400/);
    expect((await agent.get(`${ADMIN}users/`).expect(200)).text).toMatch(
      /person<\/a><\/td>\s*<td>view_certificate on all CAs; use_admin<\/td>/,
    );
  });
});

/** An ACME account of the fixture's CA (the same one each call), for the pages of one. */
async function acmeAccountSlug(): Promise<string> {
  const acme = (f.api.store as unknown as { acme: AcmeStore }).acme;
  const { account } = await acme.createAccount({
    caId: f.api.ca.id,
    jwk: { kty: 'EC', crv: 'P-256', x: 'x-of-step-up', y: 'y-of-step-up' },
    thumbprint: 'thumbprint-of-step-up',
    contact: [],
    termsOfServiceAgreed: true,
  });
  return account.slug;
}

describe('step-up', () => {
  test('after the window a revoke changes nothing and goes to reauth; reauth makes a new session, and the same revoke then works', async () => {
    const victim = await newCertificate();
    const { agent, token: old } = await signInWithToken('ops');
    const revokePage = `${certPath(victim)}revoke`;
    const form = await agent.get(revokePage).expect(200); // the sign-in counts as a step-up
    await makeStale('ops');
    // The page asks first; the POST, with a valid CSRF token, is refused and changes nothing.
    expect((await agent.get(revokePage).expect(303)).headers.location).toBe(reauthTo(revokePage));
    const before = await events().latestEventId();
    const refused = await agent
      .post(revokePage)
      .type('form')
      .send({ _csrf: formToken(form.text, revokePage), reason: 'superseded' })
      .expect(303);
    expect(refused.headers.location).toBe(reauthTo(revokePage));
    expect((await f.api.store.findCertificate(f.api.ca.id, victim.serial))?.revoked).toBe(false);
    expect(await events().latestEventId()).toBe(before);

    const reauth = await agent.get(refused.headers.location).expect(200);
    expect(reauth.text).toContain('autocomplete="current-password"');
    expect(reauth.text).toContain(`name="next" value="${revokePage}"`);
    const done = await agent
      .post(`${ADMIN}reauth`)
      .type('form')
      .send({ _csrf: formToken(reauth.text, `${ADMIN}reauth`), password: PASSWORD, next: revokePage })
      .expect(303);
    expect(done.headers.location).toBe(revokePage);
    const fresh = cookieOf(done);
    expect(fresh).toMatch(/^[\w-]{43}$/);
    expect(fresh).not.toBe(old);
    // The old token is no session any more; its CSRF token went with it.
    expect((await request(f.app).get(ADMIN).set('Cookie', `ca_admin=${old}`).expect(303)).headers.location).toMatch(/login\?/);
    await agent
      .post(revokePage)
      .type('form')
      .send({ _csrf: formToken(form.text, revokePage), reason: 'superseded' })
      .expect(403);

    const again = await agent.get(revokePage).expect(200);
    await agent
      .post(revokePage)
      .type('form')
      .send({ _csrf: formToken(again.text, revokePage), reason: 'superseded' })
      .expect(303);
    expect((await f.api.store.findCertificate(f.api.ca.id, victim.serial))?.revoked).toBe(true);
  });

  test('a wrong password on reauth changes nothing and is counted: 429 with Retry-After at the limit, the lockout audited', async () => {
    await createApiUser(f.api.store, 'fumbler', PASSWORD, { useAdmin: true }, { bcryptCost: 4 });
    const { agent, token } = await signInWithToken('fumbler');
    await makeStale('fumbler');
    const revokePage = `${certPath(cert)}revoke`;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const page = await agent.get(reauthTo(revokePage)).expect(200);
      const res = await agent
        .post(`${ADMIN}reauth`)
        .type('form')
        .send({ _csrf: formToken(page.text, `${ADMIN}reauth`), password: i < 3 ? 'wrong' : PASSWORD, next: revokePage });
      statuses.push(res.status);
      expect(cookieOf(res)).toBeUndefined();
      if (i < 3) expect(res.text).toContain('Wrong password.');
      else expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([400, 400, 400, 429]); // the right password, too late
    // Still the same, still stale session.
    await request(f.app).get(ADMIN).set('Cookie', `ca_admin=${token}`).expect(200);
    expect((await agent.get(revokePage).expect(303)).headers.location).toBe(reauthTo(revokePage));
    const lockouts = await f.api.db.knex('ca_api_events').where({ type: 'login.locked_out' }).select('actor');
    const actors = lockouts.map((r) => (typeof r.actor === 'string' ? JSON.parse(r.actor) : r.actor) as { name: string; protocol: string });
    expect(actors).toContainEqual(expect.objectContaining({ name: 'fumbler', protocol: 'admin' }));
  });

  test('`next` of reauth (and of the sign-in) never leads off the site', async () => {
    const { agent } = await signInWithToken('ops');
    for (const next of ['https://evil.example/', `//evil.example${ADMIN}`, `/\\evil.example${ADMIN}`, `${ADMIN}certs/?q=web`]) {
      const page = await agent.get(`${ADMIN}reauth?${new URLSearchParams({ next })}`).expect(200);
      const expected = next.startsWith(ADMIN) ? next : ADMIN;
      expect(page.text).toContain(`name="next" value="${expected.replace(/&/g, '&amp;')}"`);
      const res = await agent
        .post(`${ADMIN}reauth`)
        .type('form')
        .send({ _csrf: formToken(page.text, `${ADMIN}reauth`), password: PASSWORD, next })
        .expect(303);
      expect(res.headers.location).toBe(expected);
    }
    // Dot segments, plain or percent-encoded, that lead out of the interface: the dashboard.
    for (const next of [`${ADMIN}../..//evil.example`, `${ADMIN}%2e%2e/%2e%2e//evil.example`]) {
      const page = await agent.get(`${ADMIN}reauth?${new URLSearchParams({ next })}`).expect(200);
      expect(page.text).toContain(`name="next" value="${ADMIN}"`);
      const res = await agent
        .post(`${ADMIN}reauth`)
        .type('form')
        .send({ _csrf: formToken(page.text, `${ADMIN}reauth`), password: PASSWORD, next })
        .expect(303);
      expect(res.headers.location).toBe(ADMIN);
    }
    // Served at the root, `/` prefixes everything: a tab (browsers drop it, `/<tab>/host` is `//host`) is refused too.
    const root = adminOn(f.api, { path: '' });
    const login = request.agent(root.app);
    for (const next of ['/\t/evil.example/', '/\n/evil.example/', '//evil.example/']) {
      const form = await login.get('/login').expect(200);
      const res = await login
        .post('/login')
        .type('form')
        .send({ _csrf: formToken(form.text), username: 'ops', password: PASSWORD, next })
        .expect(303);
      expect(res.headers.location).toBe('/');
    }
    await root.close();
  });

  test('the routes marked for step-up are exactly revoke (a certificate, a CA), CA edit, ACME deactivation, EAB keys, enrolment endpoints and decisions, the webhook and the user changes', () => {
    const marked = ADMIN_ROUTES.filter((r) => r.stepUp).map((r) => `${r.method} ${r.path}`);
    expect(marked.sort()).toEqual(
      [
        'GET certs/{ca}/{serial}/revoke',
        'POST certs/{ca}/{serial}/revoke',
        'POST cas/{ca}/',
        'GET cas/{ca}/revoke',
        'POST cas/{ca}/revoke',
        'POST cas/{ca}/acme/{slug}/deactivate',
        'POST cas/{ca}/eab-keys',
        'POST cas/{ca}/enrolment-endpoints/',
        'POST cas/{ca}/enrolment-endpoints/{protocol}/{label}/',
        'POST cas/{ca}/enrolment-endpoints/{protocol}/{label}/delete',
        'POST cas/{ca}/enrolment-requests/{id}/approve',
        'POST cas/{ca}/enrolment-requests/{id}/refuse',
        'POST webhooks/',
        'POST webhooks/{id}/rotate',
        'POST webhooks/{id}/replay',
        'POST webhooks/{id}/delete',
        'POST users/',
        'POST users/{username}/permissions',
        'POST users/{username}/password',
        'POST users/{username}/delete',
      ].sort(),
    );
    // Every write of the interface but signing in and out, re-authenticating, issuing (resigning too) and verifying the audit log.
    const unmarkedPosts = ADMIN_ROUTES.filter((r) => r.method === 'POST' && !r.stepUp).map((r) => r.path);
    expect(unmarkedPosts.sort()).toEqual(['audit/verify', 'certs/{ca}/{serial}/resign', 'issue', 'login', 'logout', 'reauth']);
  });

  test('every route marked for step-up refuses a stale session — back to the page of its form — and nothing changes', async () => {
    const { agent } = await signInWithToken('ops');
    const csrf = formToken((await agent.get(ADMIN).expect(200)).text, `${ADMIN}logout`);
    await makeStale('ops');
    const params: Record<string, string> = {
      ca: f.api.ca.serial,
      serial: cert.serial,
      id: webhookId,
      slug: await acmeAccountSlug(),
      username: 'bob',
      protocol: 'scep',
      label: 'step-up-phones',
    };
    const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => params[name]);
    const snapshot = async () => {
      const rows = async (table: string) => f.api.db.knex(table).select('*').orderBy(1);
      const tables = [
        'ca_api_users',
        'ca_api_user_permissions',
        'ca_api_certificate_authorities',
        'ca_api_webhook_endpoints',
        'ca_api_enrolment_endpoints',
      ];
      return JSON.stringify({
        rows: await Promise.all(tables.map(rows)),
        revoked: (await f.api.store.findCertificate(f.api.ca.id, cert.serial))?.revoked,
        events: await events().latestEventId(),
      });
    };
    const before = await snapshot();
    const routes = ADMIN_ROUTES.filter((r) => r.stepUp);
    for (const route of routes) {
      const path = `${ADMIN}${fill(route.path)}`;
      const res =
        route.method === 'POST'
          ? await agent.post(path).type('form').send({
              _csrf: csrf,
              reason: 'key_compromise',
              name: 'renamed',
              url: 'https://hooks.example.com/other',
              from: '1',
              username: 'intruder',
              password: 'long enough pw',
              password2: 'long enough pw',
              manage_users: 'on',
            })
          : await agent.get(path);
      const back = route.method === 'POST' ? `${ADMIN}${fill(route.stepUp!.formPage)}` : path;
      expect({ route: `${route.method} ${route.path}`, status: res.status, location: res.headers.location }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 303,
        location: reauthTo(back),
      });
    }
    expect(await snapshot()).toBe(before);
    // Fresh again, the same session reaches the handlers (here: the webhook's rotation).
    const reauth = await agent.get(reauthTo(`${ADMIN}webhooks/`)).expect(200);
    await agent
      .post(`${ADMIN}reauth`)
      .type('form')
      .send({ _csrf: formToken(reauth.text, `${ADMIN}reauth`), password: PASSWORD, next: `${ADMIN}webhooks/` })
      .expect(303);
    const page = await agent.get(`${ADMIN}webhooks/`).expect(200);
    const rotated = await agent
      .post(`${ADMIN}webhooks/${webhookId}/rotate`)
      .type('form')
      .send({ _csrf: formToken(page.text, `${ADMIN}webhooks/${webhookId}/rotate`) })
      .expect(200);
    expect(rotated.text).toMatch(/whsec_/);
  });

  test('viewing and issuing need no step-up', async () => {
    const { agent } = await signInWithToken('ops');
    const issuePage = await agent.get(`${ADMIN}issue`).expect(200);
    await makeStale('ops');
    const params: Record<string, string> = {
      ca: f.api.ca.serial,
      serial: cert.serial,
      id: webhookId,
      slug: await acmeAccountSlug(),
      username: 'bob',
      protocol: 'scep',
      label: 'step-up-phones',
    };
    for (const route of ADMIN_ROUTES.filter((r) => r.method === 'GET' && r.access === 'session' && !r.stepUp)) {
      const res = await agent.get(`${ADMIN}${route.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name])}`);
      expect({ route: route.path, status: res.status }).toEqual({ route: route.path, status: 200 });
    }
    const { csr } = opensslCsr('EC', 'stale.example.com');
    const signed = await agent
      .post(`${ADMIN}issue`)
      .type('form')
      .send({
        _csrf: formToken(issuePage.text),
        action: 'sign',
        ca: f.api.ca.serial,
        profile: 'webserver',
        csr,
        subject: 'CN=stale.example.com',
        san: 'stale.example.com',
        days: '30',
      })
      .expect(303);
    expect(signed.headers.location).toMatch(new RegExp(`^${ADMIN}certs/${f.api.ca.serial}/[0-9A-F]+/\\?issued=1$`));
  });

  test('session.stepUpMs: 5 minutes by default, checked like the other durations', async () => {
    for (const [session, expected] of [
      [undefined, 5 * 60_000],
      [{ stepUpMs: 90_000 }, 90_000],
    ] as const) {
      const router = createCaAdminRouter({ store: f.api.store, session });
      expect(router.options.stepUpMs).toBe(expected);
      await router.close();
    }
    for (const stepUpMs of [5, 1.5, '300000', -1]) {
      expect(() => createCaAdminRouter({ store: f.api.store, session: { stepUpMs: stepUpMs as number } })).toThrow(OptionsError);
      expect(() => createCaAdminRouter({ store: f.api.store, session: { stepUpMs: stepUpMs as number } })).toThrow(/session\.stepUpMs/);
    }
  });

  test('migration 0023 gives the sessions it finds their sign-in time as the step-up; its down drops the column and keeps them', async () => {
    const knex = f.api.db.knex;
    const config = { migrationSource, tableName: MIGRATIONS_TABLE };
    await signInWithToken('ops');
    const count = async () => Number((await knex('ca_api_admin_sessions').count<{ count: string }[]>('* as count'))[0].count);
    const sessions = await count();
    expect(sessions).toBeGreaterThan(0);
    // Down to just before 0023 (the migrations after it first), then up again.
    while ((await knex.migrate.currentVersion(config)) >= '0023') await knex.migrate.down(config);
    expect(await knex.schema.hasColumn('ca_api_admin_sessions', 'step_up_at')).toBe(false);
    expect(await count()).toBe(sessions);
    await knex.migrate.latest(config);
    const rows = (await knex('ca_api_admin_sessions').select('created', 'step_up_at')) as { created: Date; step_up_at: Date }[];
    expect(rows).toHaveLength(sessions);
    for (const row of rows) expect(new Date(row.step_up_at).getTime()).toBe(new Date(row.created).getTime());
  });
});
