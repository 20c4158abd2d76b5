/**
 * createCaAdminRouter without a browser (docs/guides/admin-interface.md): sign-in and sessions, CSRF,
 * headers and cookies, permissions and per-CA grants page by page and action by action, the
 * certificate list and search, the detail page and downloads, revocation with its audit record.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import request, { type Test } from 'supertest';
import { loginAttemptLimiter } from '../../adapters/auth/login-limiter';
import { createApiUser, createCaAdminRouter, defaultProfiles, editCa, OptionsError, setApiUserPassword, signCert } from '../../lib';
import { tokenSha256 } from '../../lib/admin/session';
import type { CertificateRecord, EventLog } from '../../lib/ports';
import { issueThroughApi, opensslCsr, PASSWORD } from '../api/fixture';
import { ADMIN, adminOn, formToken, NO_PERMISSIONS, setupAdmin, type AdminFixture } from './admin-fixture';

let f: AdminFixture;
let web: CertificateRecord; // DNS:web.internal.example, DNS:alt.internal.example on the fixture's intermediate
let other: CertificateRecord; // on another CA

/** A download's bytes, whatever its Content-Type. */
const bytes = (res: Test): Test =>
  res.buffer(true).parse((r, done) => {
    const chunks: Buffer[] = [];
    r.on('data', (c: Buffer) => chunks.push(c));
    r.on('end', () => done(null, Buffer.concat(chunks)));
  });

const certPath = (caSerial: string, serial: string) => `${ADMIN}certs/${caSerial}/${serial}/`;

beforeAll(async () => {
  f = await setupAdmin({ loginLimiter: loginAttemptLimiter({ maxFailuresPerUser: 3, maxFailuresPerAddress: 1000 }) });
  const { api } = f;
  const serial = await issueThroughApi(api, opensslCsr('EC').csr, {
    subject: [{ oid: 'CN', value: 'web.internal.example' }],
    extensions: [
      {
        type: 'subject_alternative_name',
        value: [
          { type: 'DNS', value: 'web.internal.example' },
          { type: 'DNS', value: 'alt.internal.example' },
        ],
      },
    ],
  });
  web = (await api.store.findCertificate(api.ca.id, serial)) as CertificateRecord;
  const second = await api.makeCa({ name: 'second', apiEnabled: true });
  other = await signCert({
    store: api.store,
    keyBackends: { default: api.keyBackend },
    profiles: defaultProfiles(),
    ca: second,
    csr: opensslCsr('EC').csr,
    subject: [{ oid: '2.5.4.3', value: 'other.example' }],
  });
  // Only view_certificate, and only on the second CA.
  await createApiUser(
    api.store,
    'carol',
    PASSWORD,
    { ...NO_PERMISSIONS, useAdmin: true, viewCertificate: [second.serial] },
    { bcryptCost: 4 },
  );
}, 120_000);

afterAll(async () => {
  await f?.close();
});

describe('sign-in and sessions', () => {
  test('a page without a session goes to the sign-in page, which sends the security headers and a login token cookie', async () => {
    const res = await request(f.app).get(`${ADMIN}certs/?q=web`).expect(303);
    expect(res.headers.location).toBe(`${ADMIN}login?next=${encodeURIComponent(`${ADMIN}certs/?q=web`)}`);
    const login = await request(f.app).get(`${ADMIN}login`).expect(200);
    expect(login.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(login.headers['x-frame-options']).toBe('DENY');
    expect(login.headers['cache-control']).toBe('no-store');
    expect(login.headers['referrer-policy']).toBe('same-origin');
    expect(login.headers['set-cookie']).toEqual([expect.stringMatching(/^ca_admin_login=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict$/)]);
    expect(login.text).not.toMatch(/<script|style=/);
  });

  test('a wrong password and an unknown user get the same message and no session; a form without its token is 403', async () => {
    const agent = request.agent(f.app);
    for (const [username, password] of [
      ['alice', 'wrong'],
      ['nobody', PASSWORD],
    ]) {
      const form = await agent.get(`${ADMIN}login`);
      const res = await agent
        .post(`${ADMIN}login`)
        .type('form')
        .send({ _csrf: formToken(form.text), username, password })
        .expect(400);
      expect(res.text).toContain('Wrong username or password.');
      expect(String(res.headers['set-cookie'])).not.toMatch(/ca_admin=/);
    }
    await agent.get(`${ADMIN}login`);
    const forged = await agent
      .post(`${ADMIN}login`)
      .type('form')
      .send({ _csrf: 'forged', username: 'alice', password: PASSWORD })
      .expect(403);
    expect(String(forged.headers['set-cookie'])).not.toMatch(/ca_admin=[^;]/);
  });

  test('signing in makes a new session each time, kept in the store only as a hash; signing out ends it on the server', async () => {
    const cookieOf = (res: request.Response) => /ca_admin=([\w-]+)/.exec(String(res.headers['set-cookie']))?.[1] as string;
    const agent = request.agent(f.app);
    const tokens: string[] = [];
    for (let i = 0; i < 2; i++) {
      const form = await agent.get(`${ADMIN}login`);
      const res = await agent
        .post(`${ADMIN}login`)
        .type('form')
        .send({ _csrf: formToken(form.text), username: 'alice', password: PASSWORD })
        .expect(303);
      expect(String(res.headers['set-cookie'])).toMatch(/ca_admin=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict/);
      tokens.push(cookieOf(res));
    }
    expect(tokens[0]).not.toBe(tokens[1]);
    const sessions = f.api.store as unknown as { adminSessions: { findAdminSession(h: string): Promise<unknown> } };
    expect(await sessions.adminSessions.findAdminSession(tokenSha256(tokens[0]))).toBeNull(); // the first ended at the second sign-in
    expect(await sessions.adminSessions.findAdminSession(tokenSha256(tokens[1]))).not.toBeNull();
    const rows = await f.api.db.knex('ca_api_admin_sessions').select('*');
    expect(JSON.stringify(rows)).not.toContain(tokens[1]);

    const dashboard = await agent.get(ADMIN).expect(200);
    const out = await agent
      .post(`${ADMIN}logout`)
      .type('form')
      .send({ _csrf: formToken(dashboard.text, `${ADMIN}logout`) })
      .expect(303);
    expect(out.headers['clear-site-data']).toBe('"cache", "cookies"');
    expect(await sessions.adminSessions.findAdminSession(tokenSha256(tokens[1]))).toBeNull();
    // The old cookie, replayed, is no session.
    await request(f.app).get(ADMIN).set('Cookie', `ca_admin=${tokens[1]}`).expect(303);
  });

  test("a password change ends the user's sessions", async () => {
    await createApiUser(f.api.store, 'dave', PASSWORD, { ...NO_PERMISSIONS, useAdmin: true, viewCertificate: true }, { bcryptCost: 4 });
    const agent = await f.signIn('dave');
    await agent.get(ADMIN).expect(200);
    await setApiUserPassword(f.api.store, 'dave', 'another password', { bcryptCost: 4 });
    await agent.get(ADMIN).expect(303);
  });

  test('the login limiter answers 429 with Retry-After before checking the password', async () => {
    await createApiUser(f.api.store, 'erin', PASSWORD, { ...NO_PERMISSIONS, useAdmin: true, viewCertificate: true }, { bcryptCost: 4 });
    const agent = request.agent(f.app);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const form = await agent.get(`${ADMIN}login`);
      const res = await agent
        .post(`${ADMIN}login`)
        .type('form')
        .send({ _csrf: formToken(form.text), username: 'erin', password: i < 3 ? 'wrong' : PASSWORD });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([400, 400, 400, 429]); // the right password, too late
    const records = await f.api.db.knex('ca_api_events').where({ type: 'login.locked_out' }).select('actor');
    expect(records.map((r) => (typeof r.actor === 'string' ? JSON.parse(r.actor) : r.actor).protocol)).toContain('admin');
  });

  test('`next` leads back to the page asked for, never to another site', async () => {
    const agent = request.agent(f.app);
    for (const [next, expected] of [
      [`${ADMIN}certs/?q=web`, `${ADMIN}certs/?q=web`],
      ['https://evil.example/', ADMIN],
      [`//evil.example${ADMIN}`, ADMIN],
      // The prefix is checked where the browser lands, not on the text: these resolve to //evil.example.
      [`${ADMIN}../..//evil.example`, ADMIN],
      [`${ADMIN}%2e%2e/%2e%2e//evil.example`, ADMIN],
      [`${ADMIN}%2E%2E/`, ADMIN],
      [`${ADMIN}certs/../../login`, ADMIN],
      // Inside the interface, the normalised path.
      [`${ADMIN}certs/../users/`, `${ADMIN}users/`],
    ]) {
      const form = await agent.get(`${ADMIN}login`);
      const res = await agent
        .post(`${ADMIN}login`)
        .type('form')
        .send({ _csrf: formToken(form.text), username: 'alice', password: PASSWORD, next })
        .expect(303);
      expect(res.headers.location).toBe(expected);
    }
  });
});

describe('pages and permissions', () => {
  test('the certificate list finds a certificate by a SAN fragment, by CN, and by serial with or without colons', async () => {
    const agent = await f.signIn('alice');
    const colons = web.serial
      .padStart(web.serial.length + (web.serial.length % 2), '0')
      .match(/../g)!
      .join(':');
    for (const q of ['alt.internal', 'WEB.internal', colons.toLowerCase(), web.serial.slice(0, 6)]) {
      const res = await agent.get(`${ADMIN}certs/`).query({ q }).expect(200);
      expect(res.text).toContain(certPath(f.api.ca.serial, web.serial));
    }
    const none = await agent.get(`${ADMIN}certs/`).query({ q: 'no-such-name' }).expect(200);
    expect(none.text).toContain('No certificate matches.');
    expect(none.text).not.toContain(certPath(f.api.ca.serial, web.serial));
  });

  test('the detail page shows names, extensions in words and downloads that openssl reads', async () => {
    const agent = await f.signIn('alice');
    const page = await agent.get(certPath(f.api.ca.serial, web.serial)).expect(200);
    expect(page.text).toContain('DNS: alt.internal.example');
    expect(page.text).toContain('Subject alternative name');
    expect(page.text).toContain('Revoke…');
    // The fingerprints, as openssl computes them from the DER (colon-separated upper-case hex).
    for (const [name, digest] of [
      ['SHA-256', 'sha256'],
      ['SHA-512', 'sha512'],
    ]) {
      const printed = execFileSync('openssl', ['x509', '-inform', 'DER', '-noout', '-fingerprint', `-${digest}`], {
        input: web.der,
      }).toString();
      expect(page.text).toContain(printed.trim().split('=')[1]);
      expect(page.text).toContain(name);
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-dl-'));
    const pem = await bytes(agent.get(`${certPath(f.api.ca.serial, web.serial)}download?format=pem`)).expect(200);
    expect(pem.headers['content-disposition']).toBe(`attachment; filename="${web.serial}.pem"`);
    const chain = await bytes(agent.get(`${certPath(f.api.ca.serial, web.serial)}download?format=chain`)).expect(200);
    fs.writeFileSync(path.join(dir, 'leaf.pem'), pem.body.toString());
    const [, ...cas] = chain.body.toString().match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g) as string[];
    expect(cas).toHaveLength(2);
    fs.writeFileSync(path.join(dir, 'root.pem'), cas[1]);
    fs.writeFileSync(path.join(dir, 'intermediate.pem'), cas[0]);
    const verified = execFileSync('openssl', [
      'verify',
      '-CAfile',
      path.join(dir, 'root.pem'),
      '-untrusted',
      path.join(dir, 'intermediate.pem'),
      path.join(dir, 'leaf.pem'),
    ]);
    expect(verified.toString()).toContain(': OK');
    const der = await bytes(agent.get(`${certPath(f.api.ca.serial, web.serial)}download?format=der`)).expect(200);
    expect(Buffer.compare(der.body, web.der)).toBe(0);
    await agent.get(`${certPath(f.api.ca.serial, web.serial)}download?format=p12`).expect(404);
  });

  test('a user granted one CA sees nothing of another: lists narrowed, a direct URL is 403 whether or not the CA exists', async () => {
    const agent = await f.signIn('carol');
    const list = await agent.get(`${ADMIN}certs/`).query({ q: '' }).expect(200);
    expect(list.text).toContain('other.example');
    expect(list.text).not.toContain('web.internal.example');
    expect(list.text).not.toContain('>child<');
    await agent.get(certPath(f.api.ca.serial, web.serial)).expect(403);
    await agent.get(certPath('ABCDEF0123', web.serial)).expect(403);
    await agent.get(`${certPath(f.api.ca.serial, web.serial)}download?format=pem`).expect(403);
    const own = await agent
      .get(certPath(other.caId === f.api.ca.id ? '' : (await f.api.store.getCa(other.caId))!.serial, other.serial))
      .expect(200);
    expect(own.text).not.toContain('Revoke…'); // no revoke_certificate
  });

  test('no page shows a password hash or a key', async () => {
    const agent = await f.signIn('alice');
    const users = await f.api.db.knex('ca_api_users').select('password_hash');
    for (const url of [ADMIN, `${ADMIN}certs/?status=all`, certPath(f.api.ca.serial, web.serial)]) {
      const res = await agent.get(url).expect(200);
      for (const { password_hash } of users) expect(res.text).not.toContain(password_hash);
      expect(res.text).not.toMatch(/PRIVATE KEY/);
    }
  });

  test('names are escaped: a CA called <img onerror> shows as text', async () => {
    const hostile = '<img src=x onerror=alert(1)>"\'';
    await editCa(f.api.store, f.api.ca, { name: hostile });
    try {
      const agent = await f.signIn('alice');
      const res = await agent.get(ADMIN).expect(200);
      expect(res.text).not.toContain('<img src=x');
      expect(res.text).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;');
    } finally {
      await editCa(f.api.store, (await f.api.store.getCa(f.api.ca.id))!, { name: 'child' });
    }
  });

  test('unknown pages are 404 pages, other methods 405, oversized forms 413 — never a stack trace', async () => {
    const agent = await f.signIn('alice');
    const missing = await agent.get(`${ADMIN}nothing-here`).expect(404);
    expect(missing.headers['content-type']).toMatch(/^text\/html/);
    await agent.delete(`${ADMIN}certs/`).expect(405);
    const dashboard = await agent.get(ADMIN);
    await agent
      .post(`${ADMIN}logout`)
      .type('form')
      .send({ _csrf: formToken(dashboard.text, `${ADMIN}logout`), pad: 'x'.repeat(70_000) })
      .expect(413);
    expect(f.errors).toEqual([]);
  });
});

describe('revoking', () => {
  let target: CertificateRecord;
  const revokeUrl = () => `${certPath(f.api.ca.serial, target.serial)}revoke`;
  const current = async () => (await f.api.store.findCertificate(f.api.ca.id, target.serial)) as CertificateRecord;

  beforeAll(async () => {
    const serial = await issueThroughApi(f.api, opensslCsr('EC').csr, { subject: [{ oid: 'CN', value: 'revoke-me.example' }] });
    target = (await f.api.store.findCertificate(f.api.ca.id, serial)) as CertificateRecord;
  });

  test('without the CSRF token, with a wrong one, or from another site: 403 and nothing changed', async () => {
    const agent = await f.signIn('alice');
    const form = await agent.get(revokeUrl()).expect(200);
    const token = formToken(form.text);
    await agent.post(revokeUrl()).type('form').send({ reason: 'key_compromise' }).expect(403);
    await agent
      .post(revokeUrl())
      .type('form')
      .send({ _csrf: `${token}x`, reason: 'key_compromise' })
      .expect(403);
    await agent
      .post(revokeUrl())
      .set('Sec-Fetch-Site', 'cross-site')
      .type('form')
      .send({ _csrf: token, reason: 'key_compromise' })
      .expect(403);
    await agent
      .post(revokeUrl())
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({ _csrf: token, reason: 'key_compromise' })
      .expect(403);
    expect((await current()).revoked).toBe(false);
  });

  test('`Origin: null` (a sandboxed frame, a data: page) with a valid session and token: 403 and nothing changed', async () => {
    const agent = await f.signIn('alice');
    const form = await agent.get(revokeUrl()).expect(200);
    const res = await agent
      .post(revokeUrl())
      .set('Origin', 'null')
      .type('form')
      .send({ _csrf: formToken(form.text), reason: 'superseded' });
    expect(res.status).toBe(403);
    expect(res.text).toContain('came from another site; nothing was changed');
    expect((await current()).revoked).toBe(false);
  });

  test('a user without revoke_certificate sees no revoke action, and a forged POST with a valid token is 403', async () => {
    const agent = await f.signIn('no_revoke_certificate');
    const detail = await agent.get(certPath(f.api.ca.serial, target.serial)).expect(200);
    expect(detail.text).not.toContain('Revoke…');
    await agent.get(revokeUrl()).expect(403);
    await agent
      .post(revokeUrl())
      .type('form')
      .send({ _csrf: formToken(detail.text), reason: 'superseded' })
      .expect(403);
    expect((await current()).revoked).toBe(false);
  });

  test('a compromise date in the future is refused on the page; then revoked with reason and date, audited as the admin user', async () => {
    const agent = await f.signIn('alice');
    const form = await agent.get(revokeUrl()).expect(200);
    const token = formToken(form.text);
    const future = await agent
      .post(revokeUrl())
      .type('form')
      .send({ _csrf: token, reason: 'key_compromise', compromised: '2999-01-01T00:00:00Z' })
      .expect(400);
    expect(future.text).toContain('Timestamp must be in the past.');
    expect((await current()).revoked).toBe(false);
    const events = f.api.store as unknown as EventLog;
    const before = await events.latestEventId();
    await agent
      .post(revokeUrl())
      .type('form')
      .send({ _csrf: token, reason: 'key_compromise', compromised: '2026-01-02T03:04:05Z' })
      .expect(303);
    const after = await current();
    expect(after).toMatchObject({ revoked: true, revokedReason: 'key_compromise' });
    expect(after.compromised?.toISOString()).toBe('2026-01-02T03:04:05.000Z');
    const revoked = (await events.eventsSince(before)).filter((e) => e.type === 'certificate.revoked');
    expect(revoked).toHaveLength(1);
    expect(revoked[0].actor).toMatchObject({ type: 'api_user', name: 'alice', protocol: 'admin' });
    const again = await agent.post(revokeUrl()).type('form').send({ _csrf: token, reason: 'superseded' }).expect(409);
    expect(again.text).toContain('already revoked');
  });
});

describe('options and transport', () => {
  test('mistakes are OptionsErrors naming createCaAdminRouter', () => {
    expect(() => createCaAdminRouter({} as never)).toThrow(OptionsError);
    expect(() => createCaAdminRouter({ store: f.api.store, path: '/admin' })).toThrow(/createCaAdminRouter: option `path`/);
    expect(() => createCaAdminRouter({ store: f.api.store, session: { idleTimeoutMs: 5 } })).toThrow(/session.idleTimeoutMs/);
    expect(() => createCaAdminRouter({ store: f.api.store, colour: 'blue' } as never)).toThrow(/unknown option `colour`/);
    expect(() => createCaAdminRouter({ store: f.api.store, authenticator: {} as never })).toThrow(/authenticator/);
  });

  test('plain HTTP from another machine is refused unless requireTls is false; HTTPS gets __Host- cookies and HSTS', async () => {
    const behindProxy = adminOn(f.api, {}, (app) => app.set('trust proxy', true));
    try {
      await request(behindProxy.app).get(`${ADMIN}login`).set('X-Forwarded-For', '203.0.113.7').expect(403);
      const tls = await request(behindProxy.app)
        .get(`${ADMIN}login`)
        .set('X-Forwarded-For', '203.0.113.7')
        .set('X-Forwarded-Proto', 'https')
        .expect(200);
      expect(tls.headers['strict-transport-security']).toBe('max-age=31536000');
      expect(tls.headers['set-cookie']).toEqual([
        expect.stringMatching(/^__Host-ca_admin_login=[\w-]+; Path=\/; HttpOnly; SameSite=Strict; Secure$/),
      ]);
    } finally {
      await behindProxy.close();
    }
  });

  test('the idle timeout ends a session', async () => {
    const short = adminOn(f.api, { session: { idleTimeoutMs: 1000, absoluteTimeoutMs: 60_000 } });
    try {
      const agent = await short.signIn('alice');
      await agent.get(ADMIN).expect(200);
      await new Promise((r) => setTimeout(r, 1100));
      await agent.get(ADMIN).expect(303);
    } finally {
      await short.close();
    }
  });
});
