/**
 * Revoking a certificate authority from its page in the admin interface (docs/guides/admin-interface.md):
 * with `change_certificateauthority` and a recent step-up, audited as the signed-in user; afterwards
 * the CA signs nothing while its CRL is still served, signed (openssl verifies it), and its parent's
 * CRL of CAs lists it. A second revocation, bad input, a stale session, a user without the permission
 * and a POST without the CSRF token change nothing.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import request from 'supertest';
import { defaultProfiles, signCert } from '../../lib';
import type { CaRecord, EventLog } from '../../lib/ports';
import { pemEncode } from '../../lib/x509/pem';
import { opensslCsr } from '../api/fixture';
import { ADMIN, formToken, setupAdmin, type AdminAgent, type AdminFixture } from './admin-fixture';

let f: AdminFixture;
let dir: string;
const events = () => f.api.store as unknown as EventLog;
const caPage = (ca: CaRecord) => `${ADMIN}cas/${ca.serial}/`;
const revokePage = (ca: CaRecord) => `${caPage(ca)}revoke`;
const reauthTo = (next: string) => `${ADMIN}reauth?${new URLSearchParams({ next })}`;
const current = async (ca: CaRecord) => (await f.api.store.getCa(ca.id))!;

beforeAll(async () => {
  f = await setupAdmin();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-ca-revoke-'));
}, 120_000);
afterAll(async () => {
  await f?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The CA, the other CAs and the event log are as they were after `work`. */
async function unchanged(work: () => Promise<void>): Promise<void> {
  const before = { cas: await f.api.store.listCas(), events: await events().latestEventId() };
  await work();
  expect(await f.api.store.listCas()).toEqual(before.cas);
  expect(await events().latestEventId()).toBe(before.events);
}

/** Post the revoke form of `ca` as it was served in `form`. */
const postRevoke = (agent: AdminAgent, ca: CaRecord, form: string, fields: Record<string, string>) =>
  agent
    .post(revokePage(ca))
    .type('form')
    .send({ _csrf: formToken(form, revokePage(ca)), ...fields });

test('revoked through its page, audited as the user; it then signs nothing, its CRL is still signed, its parent CRL lists it', async () => {
  const ca = await f.api.makeCa({ name: 'revoked by page' });
  const alice = await f.signIn('alice');
  expect((await alice.get(caPage(ca)).expect(200)).text).toContain(`href="${revokePage(ca)}"`);
  const form = await alice.get(revokePage(ca)).expect(200);
  expect(form.text).toContain('<option value="key_compromise"');
  const done = await postRevoke(alice, ca, form.text, { reason: 'key_compromise', compromised: '2026-01-02T03:04:05Z' }).expect(303);
  expect(done.headers.location).toBe(caPage(ca));

  expect(await current(ca)).toMatchObject({
    revoked: true,
    revokedReason: 'key_compromise',
    compromised: new Date('2026-01-02T03:04:05Z'),
  });
  const [event] = (await events().eventsSince(0)).filter((e) => e.type === 'ca.revoked');
  expect(event).toMatchObject({ caSerial: ca.serial, actor: { type: 'api_user', name: 'alice', protocol: 'admin' } });
  const page = (await alice.get(caPage(ca)).expect(200)).text;
  expect(page).toMatch(
    /<dt>Revoked<\/dt>\s*<dd>\s*\d{4}-\d\d-\d\d [\d:]+ UTC, reason\s+key_compromise, key compromised 2026-01-02 03:04:05 UTC\s*<\/dd>/,
  );
  expect(page).not.toContain(`href="${revokePage(ca)}"`);

  const { csr } = opensslCsr('EC', 'after.example.com');
  const sign = signCert({
    store: f.api.store,
    keyBackends: { default: f.api.keyBackend },
    profiles: defaultProfiles(),
    ca: await current(ca),
    csr,
    subject: [{ oid: '2.5.4.3', value: 'after.example.com' }],
  });
  await expect(sign).rejects.toThrow('revoked by page: The certificate authority is revoked.');

  fs.writeFileSync(path.join(dir, 'ca.pem'), pemEncode(ca.der, 'CERTIFICATE'));
  const crl = await request(f.api.app).get(`/django_ca/crl/${ca.serial}/?encoding=PEM`).expect(200);
  fs.writeFileSync(path.join(dir, 'ca.crl'), crl.text);
  const verified = spawnSync('openssl', ['crl', '-in', 'ca.crl', '-noout', '-verify', '-CAfile', 'ca.pem'], { cwd: dir });
  expect([verified.status, verified.stderr.toString().trim()]).toEqual([0, 'verify OK']);
  const parent = await request(f.api.app).get(`/django_ca/crl/ca/${f.api.root.serial}/?encoding=PEM`).expect(200);
  const text = spawnSync('openssl', ['crl', '-noout', '-text'], { input: parent.text }).stdout.toString();
  expect(text).toMatch(new RegExp(`Serial Number: 0?${ca.serial}[\\s\\S]*?Key Compromise`));

  // Once only: the page says so, and a POST (a form left open in another tab) is a 409 that changes nothing.
  expect((await alice.get(revokePage(ca)).expect(200)).text).toContain('The certificate authority is already revoked.');
  await unchanged(async () => {
    const again = await postRevoke(alice, ca, form.text, { reason: 'superseded' }).expect(409);
    expect(again.text).toContain('The certificate authority is already revoked.');
  });
});

test('bad input is a message on the form, and nothing changes', async () => {
  const ca = await f.api.makeCa({ name: 'kept by bad input' });
  const alice = await f.signIn('alice');
  const form = await alice.get(revokePage(ca)).expect(200);
  await unchanged(async () => {
    const reason = await postRevoke(alice, ca, form.text, { reason: 'bored' }).expect(400);
    expect(reason.text).toContain('Choose a reason from the list.');
    const future = await postRevoke(alice, ca, form.text, { reason: 'key_compromise', compromised: '2999-01-01T00:00:00Z' }).expect(400);
    expect(future.text).toContain('2999-01-01T00:00:00Z: Timestamp must be in the past.');
    expect(future.text).toContain('value="2999-01-01T00:00:00Z"'); // kept for the user to correct
    const naive = await postRevoke(alice, ca, form.text, { reason: 'key_compromise', compromised: '2026-01-01T00:00:00' }).expect(400);
    expect(naive.text).toContain('Timestamp requires a timezone.');
  });
});

test('a stale session: the form and the POST send the user to reauth, and nothing changes', async () => {
  const ca = await f.api.makeCa({ name: 'kept by step-up' });
  const bob = await f.signIn('bob');
  const form = await bob.get(revokePage(ca)).expect(200);
  const user = await f.api.store.findUser('bob');
  await f.api.db
    .knex('ca_api_admin_sessions')
    .where({ user_id: user?.id })
    .update({ step_up_at: new Date(Date.now() - 10 * 60_000) });
  await unchanged(async () => {
    expect((await bob.get(revokePage(ca)).expect(303)).headers.location).toBe(reauthTo(revokePage(ca)));
    const refused = await postRevoke(bob, ca, form.text, { reason: 'superseded' }).expect(303);
    expect(refused.headers.location).toBe(reauthTo(revokePage(ca)));
  });
  expect((await current(ca)).revoked).toBe(false);
});

test('without change_certificateauthority: no link, the form and a POST are 403, nothing changes', async () => {
  const ca = await f.api.makeCa({ name: 'kept by permission' });
  const viewer = await f.signIn('no_change_certificateauthority');
  const page = await viewer.get(caPage(ca)).expect(200);
  expect(page.text).not.toContain(`href="${revokePage(ca)}"`);
  await viewer.get(revokePage(ca)).expect(403);
  await unchanged(async () => {
    await viewer
      .post(revokePage(ca))
      .type('form')
      .send({ _csrf: formToken(page.text, `${ADMIN}logout`), reason: 'superseded' })
      .expect(403);
  });
});

test('CSRF: a POST without the token, or with another session’s, is 403 and changes nothing', async () => {
  const ca = await f.api.makeCa({ name: 'kept by csrf' });
  const alice = await f.signIn('alice');
  const bob = await f.signIn('bob');
  const bobsForm = await bob.get(revokePage(ca)).expect(200);
  await alice.get(revokePage(ca)).expect(200);
  await unchanged(async () => {
    await alice.post(revokePage(ca)).type('form').send({ reason: 'superseded' }).expect(403);
    await postRevoke(alice, ca, bobsForm.text, { reason: 'superseded' }).expect(403);
  });
});
