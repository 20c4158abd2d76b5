/**
 * The admin interface's writes besides revocation (docs/guides/admin-interface.md): issuing from a CSR
 * (read, then sign; the CLI's rules; audited as the user) and editing a CA (the REST update's rules and
 * wording; what the REST API then shows), each refused with 403 and nothing changed without the
 * permission or the CSRF token.
 */
import { randomBytes } from 'crypto';
import request from 'supertest';
import { envKekSecretBox } from '../../adapters/keys/secret-box';
import { createApiUser } from '../../lib';
import type { AcmeStore, CertificateRecord, EventLog } from '../../lib/ports';
import { parseCsr } from '../../lib/x509/csr';
import { API, opensslCsr, PASSWORD } from '../api/fixture';
import { ADMIN, formToken, NO_PERMISSIONS, setupAdmin, type AdminFixture } from './admin-fixture';

let f: AdminFixture;

beforeAll(async () => {
  f = await setupAdmin({ webhookSecrets: envKekSecretBox({ CA_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') }) ?? undefined });
  await createApiUser(
    f.api.store,
    'viewer',
    PASSWORD,
    { ...NO_PERMISSIONS, useAdmin: true, viewCertificateAuthority: true, viewCertificate: true },
    { bcryptCost: 4 },
  );
}, 120_000);

afterAll(async () => {
  await f?.close();
});

const events = () => f.api.store as unknown as EventLog;

describe('issue from a CSR', () => {
  test('"Read CSR" fills subject and SANs from the CSR; "Sign" issues what the form says, audited as the user', async () => {
    const agent = await f.signIn('alice');
    const page = await agent.get(`${ADMIN}issue`).expect(200);
    expect(page.text).toContain(`<option value="${f.api.ca.serial}"`);
    const { csr } = opensslCsr('EC', 'from-csr.example.com');
    const read = await agent
      .post(`${ADMIN}issue`)
      .type('form')
      .send({ _csrf: formToken(page.text), action: 'read', ca: f.api.ca.serial, profile: 'webserver', csr, subject: '', san: '', days: '' })
      .expect(200);
    expect(read.text).toContain('value="CN=from-csr.example.com"');
    expect(read.text).toContain('its signature is valid');
    const before = await events().latestEventId();
    const signed = await agent
      .post(`${ADMIN}issue`)
      .type('form')
      .send({
        _csrf: formToken(page.text),
        action: 'sign',
        ca: f.api.ca.serial,
        profile: 'webserver',
        csr,
        subject: 'CN=issued.example.com',
        san: 'issued.example.com\nIP:10.1.2.3',
        days: '30',
      })
      .expect(303);
    const serial = /certs\/[0-9A-F]+\/([0-9A-F]+)\/\?issued=1$/.exec(signed.headers.location)?.[1] as string;
    const cert = (await f.api.store.findCertificate(f.api.ca.id, serial)) as CertificateRecord;
    expect(cert.cn).toBe('issued.example.com');
    const san = cert.certificate.extensions.find((e) => e.type === 'subject_alternative_name');
    expect(san?.value).toEqual([
      { type: 'DNS', value: 'issued.example.com' },
      { type: 'IP', value: '10.1.2.3' },
    ]);
    expect(Math.round((cert.notAfter.getTime() - cert.notBefore.getTime()) / 86_400_000)).toBe(30);
    const issued = (await events().eventsSince(before)).filter((e) => e.type === 'certificate.issued');
    expect(issued.map((e) => e.actor)).toEqual([expect.objectContaining({ type: 'api_user', name: 'alice', protocol: 'admin' })]);
  });

  test('bad input is a message on the page and issues nothing', async () => {
    const agent = await f.signIn('alice');
    const page = await agent.get(`${ADMIN}issue`).expect(200);
    const { csr } = opensslCsr('EC', 'bad.example.com');
    const base = {
      _csrf: formToken(page.text),
      action: 'sign',
      ca: f.api.ca.serial,
      profile: 'webserver',
      csr,
      subject: 'CN=bad.example.com',
      san: '',
      no_san: 'on', // the question about a server certificate without subjectAltName is answered: the checks below come next
      days: '',
    };
    const before = await events().latestEventId();
    const notCsr = await agent
      .post(`${ADMIN}issue`)
      .type('form')
      .send({ ...base, csr: 'not a CSR' })
      .expect(400);
    expect(notCsr.text).toContain('Not a usable CSR');
    const tooLong = await agent
      .post(`${ADMIN}issue`)
      .type('form')
      .send({ ...base, days: '99999' })
      .expect(400);
    expect(tooLong.text).toMatch(/Certificate would outlive CA, maximum expiry for this CA is \d+ days \(it expires [0-9T:-]+Z\)\./);
    const badSan = await agent
      .post(`${ADMIN}issue`)
      .type('form')
      .send({ ...base, san: 'IP:999.1.1.1' })
      .expect(400);
    expect(badSan.text).toContain('Could not parse IP address');
    await agent
      .post(`${ADMIN}issue`)
      .type('form')
      .send({ ...base, days: '-3' })
      .expect(400);
    expect((await events().eventsSince(before)).filter((e) => e.type === 'certificate.issued')).toEqual([]);
  });

  test('without sign_certificate: no CA to choose, and a forged POST is 403 with nothing issued', async () => {
    const agent = await f.signIn('viewer');
    const page = await agent.get(`${ADMIN}issue`).expect(200);
    expect(page.text).toContain('There is no CA you may sign with');
    const before = await events().latestEventId();
    const { csr } = opensslCsr('EC', 'forged.example.com');
    await agent
      .post(`${ADMIN}issue`)
      .type('form')
      .send({
        _csrf: formToken(page.text, `${ADMIN}logout`),
        action: 'sign',
        ca: f.api.ca.serial,
        profile: 'webserver',
        csr,
        subject: 'CN=forged.example.com',
      })
      .expect(403);
    expect((await events().eventsSince(before)).filter((e) => e.type === 'certificate.issued')).toEqual([]);
  });
});

describe('editing a CA', () => {
  test('a new CRL URL, name and website are saved, audited as the user, and the REST API shows them', async () => {
    const agent = await f.signIn('alice');
    const url = `${ADMIN}cas/${f.api.ca.serial}/`;
    const page = await agent.get(url).expect(200);
    expect(page.text).toContain('name="crl_urls"');
    const before = await events().latestEventId();
    await agent
      .post(url)
      .type('form')
      .send({
        _csrf: formToken(page.text),
        name: 'child',
        enabled: 'on',
        api_enabled: 'on',
        crl_urls: 'http://crl.example.net/child.crl',
        ocsp_urls: 'http://ocsp.example.net/',
        issuer_urls: '',
        website: 'https://pki.example.net/',
        terms_of_service: '',
        caa_identity: '',
      })
      .expect(303);
    const rest = await request(f.api.app).get(`${API}/ca/${f.api.ca.serial}/`).set(f.api.auth('alice')).expect(200);
    expect(rest.body.sign_crl_distribution_points.value).toEqual([
      { full_name: [{ type: 'URI', value: 'http://crl.example.net/child.crl' }], relative_name: null, reasons: null, crl_issuer: null },
    ]);
    expect(rest.body.sign_authority_information_access.value).toEqual([
      { access_method: '1.3.6.1.5.5.7.48.1', access_location: { type: 'URI', value: 'http://ocsp.example.net/' } },
    ]);
    expect(rest.body.website).toBe('https://pki.example.net/');
    const updated = (await events().eventsSince(before)).filter((e) => e.type === 'ca.updated');
    expect(updated.map((e) => e.actor)).toEqual([expect.objectContaining({ name: 'alice', protocol: 'admin' })]);
    const shown = await agent.get(`${url}?saved=1`).expect(200);
    expect(shown.text).toContain('Saved.');
    expect(shown.text).toContain('http://crl.example.net/child.crl');
  });

  test("the REST update's rules, in its words, change nothing; a viewer sees no form and a forged POST is 403", async () => {
    const agent = await f.signIn('alice');
    const url = `${ADMIN}cas/${f.api.ca.serial}/`;
    const page = await agent.get(url).expect(200);
    const before = await f.api.store.getCa(f.api.ca.id);
    const bad = await agent
      .post(url)
      .type('form')
      .send({ _csrf: formToken(page.text), name: '', website: 'not a url', enabled: 'on', api_enabled: 'on' })
      .expect(400);
    expect(bad.text).toContain('This field cannot be blank.');
    expect(bad.text).toContain('Enter a valid URL.');
    expect((await f.api.store.getCa(f.api.ca.id))?.updated).toEqual(before?.updated);

    const viewer = await f.signIn('viewer');
    const seen = await viewer.get(url).expect(200);
    expect(seen.text).not.toContain('name="crl_urls"');
    await viewer
      .post(url)
      .type('form')
      .send({ _csrf: formToken(seen.text, `${ADMIN}logout`), name: 'taken over', enabled: 'on' })
      .expect(403);
    expect((await f.api.store.getCa(f.api.ca.id))?.name).toBe('child');
  });
});

describe('ACME accounts', () => {
  test('listed per CA; deactivated by a user who may change the CA, with an event naming them; a viewer cannot', async () => {
    const acme = (f.api.store as unknown as { acme: AcmeStore }).acme;
    const { account } = await acme.createAccount({
      caId: f.api.ca.id,
      jwk: { kty: 'EC', crv: 'P-256', x: 'x-of-the-test', y: 'y-of-the-test' },
      thumbprint: 'thumbprint-of-the-test',
      contact: ['mailto:ops@example.com'],
      termsOfServiceAgreed: true,
    });
    const url = `${ADMIN}cas/${f.api.ca.serial}/acme/`;
    const viewer = await f.signIn('viewer');
    const seen = await viewer.get(url).expect(200);
    expect(seen.text).toContain(account.slug);
    expect(seen.text).toContain('mailto:ops@example.com');
    expect(seen.text).not.toContain('Deactivate');
    await viewer
      .post(`${url}${account.slug}/deactivate`)
      .type('form')
      .send({ _csrf: formToken(seen.text, `${ADMIN}logout`) })
      .expect(403);
    expect((await acme.findAccount(f.api.ca.id, account.slug))?.status).toBe('valid');

    const agent = await f.signIn('alice');
    const page = await agent.get(url).expect(200);
    await agent.post(`${url}${account.slug}/deactivate`).type('form').send({}).expect(403); // no CSRF token
    const before = await events().latestEventId();
    await agent
      .post(`${url}${account.slug}/deactivate`)
      .type('form')
      .send({ _csrf: formToken(page.text) })
      .expect(303);
    expect((await acme.findAccount(f.api.ca.id, account.slug))?.status).toBe('deactivated');
    const deactivated = (await events().eventsSince(before)).filter((e) => e.type === 'acme.account.deactivated');
    expect(deactivated).toHaveLength(1);
    expect(deactivated[0].actor).toMatchObject({ type: 'api_user', name: 'alice', protocol: 'admin' });
    expect(deactivated[0].data).toMatchObject({ account: account.slug });
    const again = await agent
      .post(`${url}${account.slug}/deactivate`)
      .type('form')
      .send({ _csrf: formToken(page.text) })
      .expect(409);
    expect(again.text).toContain('deactivated already');
  });
});

describe('the audit log', () => {
  test('needs view_auditlog: others get 403 and no link; the auditor sees the records, filters them, and verifies the chain', async () => {
    await createApiUser(f.api.store, 'auditor', PASSWORD, { ...NO_PERMISSIONS, useAdmin: true, viewAuditLog: true }, { bcryptCost: 4 });
    const alice = await f.signIn('alice');
    const dashboard = await alice.get(ADMIN).expect(200);
    expect(dashboard.text).not.toContain('Audit log');
    await alice.get(`${ADMIN}audit/`).expect(403);
    await alice
      .post(`${ADMIN}audit/verify`)
      .type('form')
      .send({ _csrf: formToken(dashboard.text, `${ADMIN}logout`) })
      .expect(403);

    const auditor = await f.signIn('auditor');
    const page = await auditor.get(`${ADMIN}audit/`).expect(200);
    expect(page.text).toContain('Audit log</a>'); // the navigation offers it
    expect(page.text).toContain('ca.updated');
    expect(page.text).toMatch(/api_user alice over admin from [\d.:a-f]+/);
    const ofCa = await auditor.get(`${ADMIN}audit/`).query({ ca: f.api.root.serial }).expect(200);
    expect(ofCa.text).not.toContain(`href="${ADMIN}cas/${f.api.ca.serial}/"`); // no record names it (the CA select still offers it)
    const verified = await auditor
      .post(`${ADMIN}audit/verify`)
      .type('form')
      .send({ _csrf: formToken(page.text, `${ADMIN}audit/verify`) })
      .expect(200);
    expect(verified.text).toMatch(/The chain is intact: \d+ records, head [0-9a-f]{64}\./);

    // An intruder who owns the table edits a record behind the append-only guard: the page says where.
    const [{ id }] = await f.api.db.knex('ca_api_events').where({ type: 'ca.updated' }).select('id').orderBy('id').limit(1);
    await f.api.db.knex.transaction(async (trx) => {
      await trx.raw('ALTER TABLE ca_api_events DISABLE TRIGGER ca_api_audit_append_only');
      await trx.raw(`UPDATE ca_api_events SET data = '{"changed":["name"]}' WHERE id = ${Number(id)}`);
      await trx.raw('ALTER TABLE ca_api_events ENABLE TRIGGER ca_api_audit_append_only');
    });
    const broken = await auditor
      .post(`${ADMIN}audit/verify`)
      .type('form')
      .send({ _csrf: formToken(page.text, `${ADMIN}audit/verify`) })
      .expect(200);
    expect(broken.text).toContain(`The chain is broken at record ${id}`);
  });
});

describe('users', () => {
  test('needs manage_users; creates a user limited to one CA, changes its permissions and password, deletes it — audited; guard rails for oneself', async () => {
    await createApiUser(f.api.store, 'admin', PASSWORD, { useAdmin: true, manageUsers: true }, { bcryptCost: 4 });
    const alice = await f.signIn('alice');
    const dashboard = await alice.get(ADMIN).expect(200);
    expect(dashboard.text).not.toContain('>Users<');
    await alice.get(`${ADMIN}users/`).expect(403);
    await alice
      .post(`${ADMIN}users/`)
      .type('form')
      .send({
        _csrf: formToken(dashboard.text, `${ADMIN}logout`),
        username: 'sneaky',
        password: 'long enough',
        password2: 'long enough',
        manage_users: 'on',
      })
      .expect(403);
    expect(await f.api.store.findUser('sneaky')).toBeNull();

    const admin = await f.signIn('admin');
    const list = await admin.get(`${ADMIN}users/`).expect(200);
    expect(list.text).toMatch(/alice<\/a><\/td>\s*<td>every permission on all CAs; use_admin<\/td>/);
    const token = formToken(list.text, `${ADMIN}users/`);
    const short = await admin
      .post(`${ADMIN}users/`)
      .type('form')
      .send({ _csrf: token, username: 'newbie', password: 'short', password2: 'short' })
      .expect(400);
    expect(short.text).toContain('at least 8 characters');
    const before = await events().latestEventId();
    await admin
      .post(`${ADMIN}users/`)
      .type('form')
      .send(
        `_csrf=${token}&username=newbie&password=correct+horse+1&password2=correct+horse+1&use_admin=on&view_certificate=on&cas=${f.api.root.serial}`,
      )
      .expect(303);
    const created = await f.api.store.findUser('newbie');
    expect(created?.permissions).toEqual(['use_admin']);
    expect(created?.caGrants).toEqual([{ permission: 'view_certificate', caSerial: f.api.root.serial }]);
    expect((await events().eventsSince(before)).filter((e) => e.type === 'user.created').map((e) => e.actor)).toEqual([
      expect.objectContaining({ name: 'admin', protocol: 'admin' }),
    ]);
    await f.signIn('newbie', 'correct horse 1'); // the new password works

    const page = await admin.get(`${ADMIN}users/newbie/`).expect(200);
    await admin
      .post(`${ADMIN}users/newbie/permissions`)
      .type('form')
      .send({
        _csrf: formToken(page.text, `${ADMIN}users/newbie/permissions`),
        sign_certificate: 'on',
        use_admin: 'on',
        view_auditlog: 'on',
      })
      .expect(303);
    expect((await f.api.store.findUser('newbie'))?.permissions).toEqual(['sign_certificate', 'use_admin', 'view_auditlog']);
    await admin
      .post(`${ADMIN}users/newbie/password`)
      .type('form')
      .send({ _csrf: formToken(page.text, `${ADMIN}users/newbie/password`), password: 'another horse', password2: 'another horse' })
      .expect(303);
    await expect(f.signIn('newbie', 'another horse')).resolves.toBeDefined();

    // Oneself: no deleting, no giving up manage_users.
    const own = await admin.get(`${ADMIN}users/admin/`).expect(200);
    expect(own.text).not.toContain('Delete admin');
    await admin
      .post(`${ADMIN}users/admin/delete`)
      .type('form')
      .send({ _csrf: formToken(own.text, `${ADMIN}logout`) })
      .expect(400);
    const demote = await admin
      .post(`${ADMIN}users/admin/permissions`)
      .type('form')
      .send({ _csrf: formToken(own.text, `${ADMIN}logout`), view_certificate: 'on' })
      .expect(400);
    expect(demote.text).toContain('You cannot take manage_users away from yourself.');
    expect((await f.api.store.findUser('admin'))?.permissions).toContain('manage_users');

    await admin
      .post(`${ADMIN}users/newbie/delete`)
      .type('form')
      .send({ _csrf: formToken(page.text, `${ADMIN}users/newbie/delete`) })
      .expect(303);
    expect(await f.api.store.findUser('newbie')).toBeNull();
  });
});

describe('webhooks', () => {
  test('needs manage_webhooks; add shows the secret once, rotate too; bad URLs are messages; replay and remove; dead letters — audited', async () => {
    await createApiUser(f.api.store, 'hooks', PASSWORD, { ...NO_PERMISSIONS, useAdmin: true, manageWebhooks: true }, { bcryptCost: 4 });
    const alice = await f.signIn('alice');
    await alice.get(`${ADMIN}webhooks/`).expect(403);

    const hooks = await f.signIn('hooks');
    const page = await hooks.get(`${ADMIN}webhooks/`).expect(200);
    expect(page.text).toContain('No webhook endpoint.');
    const token = formToken(page.text, `${ADMIN}webhooks/`);
    const bad = await hooks
      .post(`${ADMIN}webhooks/`)
      .type('form')
      .send({ _csrf: token, url: 'https://user:pw@hooks.example.com/' })
      .expect(400);
    expect(bad.text).toContain('must not carry credentials');
    const before = await events().latestEventId();
    const added = await hooks
      .post(`${ADMIN}webhooks/`)
      .type('form')
      .send(`_csrf=${token}&url=${encodeURIComponent('https://hooks.example.com/ca')}&types=certificate.revoked&types=certificate.issued`)
      .expect(200);
    const secret = /<pre id="secret">(whsec_[^<]+)<\/pre>/.exec(added.text)?.[1];
    expect(secret).toBeDefined();
    expect(added.headers['cache-control']).toBe('no-store');
    const list = await hooks.get(`${ADMIN}webhooks/`).expect(200);
    expect(list.text).toContain('https://hooks.example.com/ca');
    expect(list.text).toContain('certificate.revoked, certificate.issued');
    expect(list.text).not.toContain(secret as string); // never again
    const id = Number(/webhooks\/(\d+)\/rotate/.exec(list.text)?.[1]);
    const rotated = await hooks.post(`${ADMIN}webhooks/${id}/rotate`).type('form').send({ _csrf: token }).expect(200);
    const second = /<pre id="secret">(whsec_[^<]+)<\/pre>/.exec(rotated.text)?.[1];
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(secret);
    await hooks.post(`${ADMIN}webhooks/${id}/replay`).type('form').send({ _csrf: token, from: '1' }).expect(303);
    await hooks.post(`${ADMIN}webhooks/${id}/replay`).type('form').send({ _csrf: token, from: 'x' }).expect(400);
    const letters = await hooks.get(`${ADMIN}webhooks/${id}/`).expect(200);
    expect(letters.text).toContain('No dead letter');
    await hooks.get(`${ADMIN}webhooks/999999/`).expect(404);
    await hooks.post(`${ADMIN}webhooks/${id}/delete`).type('form').send({ _csrf: token }).expect(303);
    await hooks.post(`${ADMIN}webhooks/${id}/delete`).type('form').send({ _csrf: token }).expect(404);
    const types = (await events().eventsSince(before)).filter((e) => e.type.startsWith('webhook.'));
    expect(types.map((e) => [e.type, e.actor.name, e.actor.protocol])).toEqual([
      ['webhook.created', 'hooks', 'admin'],
      ['webhook.secret_rotated', 'hooks', 'admin'],
      ['webhook.removed', 'hooks', 'admin'],
    ]);
  });
});

describe('enrolment requests (an EST or SCEP endpoint with approval)', () => {
  /** A request as the enrolment core keeps it (lib/enrolment/approval.ts), of the fixture's CA. */
  const requests = () => {
    const store = f.api.store;
    return store.enrolmentRequests;
  };
  const keep = async (cn: string) => {
    const kept = await requests().createEnrolmentRequest({
      protocol: 'scep',
      label: 'phones',
      caId: f.api.ca.id,
      profile: 'webserver',
      validityDays: null,
      csrDer: parseCsr(opensslCsr('EC', cn).csr).der,
      requester: { type: 'challenge', name: 'phones', protocol: 'scep' },
      requestKey: randomBytes(32).toString('hex'),
    });
    return kept!;
  };
  const url = () => `${ADMIN}cas/${f.api.ca.serial}/enrolment-requests/`;

  test('listed with Approve and Refuse; approving signs it, the device its requester, the user the approver; refusing keeps the reason', async () => {
    const approved = await keep('held-admin.example.com');
    const refused = await keep('refused-admin.example.com');
    const agent = await f.signIn('alice');
    expect((await agent.get(`${ADMIN}cas/${f.api.ca.serial}/`).expect(200)).text).toContain(`href="${url()}">Enrolment requests</a>`);
    const list = await agent.get(url()).expect(200);
    expect(list.text).toContain('CN=held-admin.example.com');
    expect(list.text).toContain(`action="${url()}${approved.id}/approve"`);
    const before = await events().latestEventId();
    await agent
      .post(`${url()}${approved.id}/approve`)
      .type('form')
      .send({ _csrf: formToken(list.text, `${url()}${approved.id}/approve`) })
      .expect(303);
    const decided = await requests().getEnrolmentRequest(approved.id);
    expect(decided).toMatchObject({ status: 'approved', decidedBy: { type: 'api_user', name: 'alice', protocol: 'admin' } });
    const issued = (await events().eventsSince(before)).map((e) => [e.type, e.actor.type, e.actor.name, e.serial]);
    expect(issued).toEqual([
      ['certificate.issued', 'challenge', 'phones', decided!.certificateSerial],
      ['enrolment.approved', 'api_user', 'alice', decided!.certificateSerial],
    ]);
    // Approved again (a second click): a message, nothing issued.
    const again = await agent
      .post(`${url()}${approved.id}/approve`)
      .type('form')
      .send({ _csrf: formToken(list.text) })
      .expect(409);
    expect(again.text).toContain(`Enrolment request ${approved.id} was approved already.`);
    await agent
      .post(`${url()}${refused.id}/refuse`)
      .type('form')
      .send({ _csrf: formToken(list.text), reason: 'Not one of ours.' })
      .expect(303);
    expect(await requests().getEnrolmentRequest(refused.id)).toMatchObject({ status: 'refused', reason: 'Not one of ours.' });
    const after = await agent.get(url()).expect(200);
    expect(after.text).toContain('No enrolment request waits for approval.');
    expect(after.text).toContain('refused: Not one of ours.');
    expect((await events().eventsSince(before)).length).toBe(3);
  });

  test('without sign_certificate: 403, nothing decided', async () => {
    const waiting = await keep('viewer-admin.example.com');
    const agent = await f.signIn('viewer');
    await agent.get(url()).expect(403);
    const token = formToken((await agent.get(`${ADMIN}`).expect(200)).text, `${ADMIN}logout`);
    await agent.post(`${url()}${waiting.id}/approve`).type('form').send({ _csrf: token }).expect(403);
    expect(await requests().getEnrolmentRequest(waiting.id)).toMatchObject({ status: 'pending' });
  });
});
