/**
 * A CA's enrolment endpoints kept in the database, managed in the admin interface (docs/guides/admin-interface.md):
 * add (a generated SCEP challenge shown once, kept as its SHA-256), edit, delete — each
 * audited as the signed-in user over `admin`; the CLI's rules in the CLI's words, a refusal writing
 * nothing; only for a user with `change_certificateauthority` on that CA; never another CA's endpoint.
 * The endpoints made here are the ones `ca-admin list_enrolment_endpoints` shows (the same store rows).
 */
import * as crypto from 'crypto';
import { createApiUser } from '../../lib';
import type { EnrolmentEndpointStore, EventLog } from '../../lib/ports';
import { PASSWORD } from '../api/fixture';
import { cliRunner } from '../cli/helpers';
import { ADMIN, formToken, NO_PERMISSIONS, setupAdmin, type AdminFixture } from './admin-fixture';

let f: AdminFixture;
let list: string;

beforeAll(async () => {
  f = await setupAdmin();
  // May change the root only: the fixture's intermediate (f.api.ca) is not theirs.
  await createApiUser(
    f.api.store,
    'root_admin',
    PASSWORD,
    { ...NO_PERMISSIONS, useAdmin: true, viewCertificateAuthority: true, changeCertificateAuthority: [f.api.root.serial] },
    { bcryptCost: 4 },
  );
  list = `${ADMIN}cas/${f.api.ca.serial}/enrolment-endpoints/`;
}, 120_000);

afterAll(async () => {
  await f?.close();
});

const events = () => f.api.store as unknown as EventLog;
function endpoints(): EnrolmentEndpointStore {
  return f.api.store.enrolmentEndpoints;
}
const rows = async () => JSON.stringify(await endpoints().listEnrolmentEndpoints());
const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

/** The fields of the add form, as a browser sends them (unchecked boxes left out). */
const FORM = {
  protocol: 'SCEP',
  label: 'phones',
  profile: '',
  challenge: 'generate',
  requests_per_minute: '',
  allow: '',
  deny: '',
  subject_attributes: '',
  validity_days: '',
  enabled: 'on',
};

describe('enrolment endpoints in the admin interface', () => {
  test('add with a generated challenge (shown once, kept as its SHA-256), edit, delete: each audited as the user', async () => {
    const agent = await f.signIn('alice');
    const caPage = await agent.get(`${ADMIN}cas/${f.api.ca.serial}/`).expect(200);
    expect(caPage.text).toContain(`href="${list}"`);
    const page = await agent.get(list).expect(200);
    expect(page.text).toContain('None kept in the database');
    const before = await events().latestEventId();

    const made = await agent
      .post(list)
      .type('form')
      .send({ ...FORM, _csrf: formToken(page.text), approval: 'on', allow: 'devices.example.com\n10.0.0.0/8', validity_days: '30' })
      .expect(200);
    const challenge = /<pre id="challenge">([0-9a-f]{40})<\/pre>/.exec(made.text)?.[1];
    expect(challenge).toBeDefined();
    const stored = await endpoints().findEnrolmentEndpoint('SCEP', 'phones');
    expect(stored).toMatchObject({
      caId: f.api.ca.id,
      profile: null,
      approval: true,
      validityDays: 30,
      requestsPerMinute: null,
      challengeWebhook: false,
      enabled: true,
      names: { allow: ['devices.example.com', '10.0.0.0/8'], deny: [], subjectAttributes: null },
      challengeSha256: sha256(challenge!),
    });
    // Never shown again: not on the list, not on its edit page.
    const listed = await agent.get(list).expect(200);
    expect(listed.text).toMatch(
      /<td>SCEP<\/td>\s*<td class="mono">\s*<a href="[^"]*\/scep\/phones\/" aria-label="Edit SCEP phones">phones<\/a>\s*<\/td>\s*<td>default<\/td>\s*<td>static<\/td>\s*<td>yes<\/td>/,
    );
    expect(listed.text).not.toContain(challenge);
    const editUrl = `${list}scep/phones/`;
    const edit = await agent.get(editUrl).expect(200);
    expect(edit.text).not.toContain(challenge);
    expect(edit.text).toMatch(/<option value="keep"\s+selected>keep \(static\)<\/option>/);
    // The CLI sees the same endpoint.
    expect((await cliRunner(f.api.store)(['list_enrolment_endpoints'])).stdout).toContain('scep/phones - CA ');

    await agent
      .post(editUrl)
      .type('form')
      .send({
        ...FORM,
        _csrf: formToken(edit.text),
        challenge: 'keep',
        profile: 'client',
        deny: 'bad.devices.example.com',
        allow: 'devices.example.com',
        subject_attributes: 'CN, O',
        requests_per_minute: '60',
        enabled: undefined,
      })
      .expect(303)
      .expect('Location', list);
    expect(await endpoints().findEnrolmentEndpoint('SCEP', 'phones')).toMatchObject({
      profile: 'client',
      approval: false,
      validityDays: null,
      requestsPerMinute: 60,
      enabled: false,
      names: { allow: ['devices.example.com'], deny: ['bad.devices.example.com'], subjectAttributes: ['CN', 'O'] },
      challengeSha256: stored!.challengeSha256,
    });

    await agent
      .post(`${editUrl}delete`)
      .type('form')
      .send({ _csrf: formToken(edit.text) })
      .expect(303);
    expect(await endpoints().findEnrolmentEndpoint('SCEP', 'phones')).toBeNull();

    const audited = (await events().eventsSince(before)).filter((e) => e.type.startsWith('enrolment.endpoint.'));
    expect(audited.map((e) => [e.type, e.actor.name, e.actor.protocol])).toEqual([
      ['enrolment.endpoint.created', 'alice', 'admin'],
      ['enrolment.endpoint.updated', 'alice', 'admin'],
      ['enrolment.endpoint.deleted', 'alice', 'admin'],
    ]);
    expect(JSON.stringify(audited)).not.toContain(challenge);
  });

  test('an EST endpoint with the webhook challenge is added without a challenge page', async () => {
    const agent = await f.signIn('alice');
    const page = await agent.get(list).expect(200);
    await agent
      .post(list)
      .type('form')
      .send({ ...FORM, _csrf: formToken(page.text), protocol: 'EST', label: 'laptops', challenge: 'webhook' })
      .expect(303);
    expect(await endpoints().findEnrolmentEndpoint('EST', 'laptops')).toMatchObject({ challengeWebhook: true, challengeSha256: null });
    await endpoints().deleteEnrolmentEndpoint('EST', 'laptops');
  });

  test.each([
    [{ label: 'cacerts', protocol: 'EST', challenge: 'none' }, /cannot be a label/],
    [{ label: 'bad label' }, /cannot be a label/],
    [{ protocol: 'CMP' }, /the protocol is est or scep/],
    [{ protocol: 'EST', challenge: 'generate' }, /EST endpoints take no static challenge password/],
    [{ profile: 'no-such-profile' }, /no-such-profile: Profile is not defined\./],
    [{ validity_days: '0' }, /the validity is a whole number of days, at least 1/],
    [{ validity_days: 'ten' }, /Validity: &quot;ten&quot; is not a whole number/],
    [{ requests_per_minute: '0' }, /the budget is a whole number of requests a minute/],
    [{ allow: '*.example.com' }, /Names allowed:/],
    [{ subject_attributes: 'CN, NOPE' }, /Subject attributes: NOPE is not a name attribute/],
  ])('%j is refused with 400 in the CLI’s words, the form kept, nothing written', async (change, message) => {
    const agent = await f.signIn('alice');
    const page = await agent.get(list).expect(200);
    const before = await rows();
    const latest = await events().latestEventId();
    const res = await agent
      .post(list)
      .type('form')
      .send({ ...FORM, _csrf: formToken(page.text), ...change })
      .expect(400);
    expect(res.text).toMatch(message);
    expect(res.text).toContain('role="alert"');
    const typed = (change as { label?: string }).label ?? FORM.label;
    expect(res.text).toContain(`name="label" size="60" value="${typed}"`);
    expect(await rows()).toBe(before);
    expect(await events().latestEventId()).toBe(latest);
  });

  test('an edit that sends no challenge field keeps the challenge (adding without one makes none)', async () => {
    const agent = await f.signIn('alice');
    const page = await agent.get(list).expect(200);
    const { challenge: _omitted, ...withoutChallenge } = FORM;
    await agent
      .post(list)
      .type('form')
      .send({ ...withoutChallenge, _csrf: formToken(page.text), label: 'no-field' })
      .expect(303);
    expect(await endpoints().findEnrolmentEndpoint('SCEP', 'no-field')).toMatchObject({ challengeSha256: null, challengeWebhook: false });
    await endpoints().updateEnrolmentEndpoint('SCEP', 'no-field', { challengeSha256: sha256('kept') });
    await agent
      .post(`${list}scep/no-field/`)
      .type('form')
      .send({ ...withoutChallenge, _csrf: formToken(page.text), validity_days: '9' })
      .expect(303);
    expect(await endpoints().findEnrolmentEndpoint('SCEP', 'no-field')).toMatchObject({ challengeSha256: sha256('kept'), validityDays: 9 });
    await endpoints().deleteEnrolmentEndpoint('SCEP', 'no-field');
  });

  test('the same label twice is refused; an endpoint of another CA is 404 here, and left alone', async () => {
    await cliRunner(f.api.store)(['create_enrolment_endpoint', 'scep', 'root-phones', '--ca', f.api.root.serial]);
    const agent = await f.signIn('alice');
    const page = await agent.get(list).expect(200);
    const twice = await agent
      .post(list)
      .type('form')
      .send({ ...FORM, _csrf: formToken(page.text), label: 'root-phones' })
      .expect(400);
    expect(twice.text).toContain('scep/root-phones: the enrolment endpoint exists already.');
    await agent.get(`${list}scep/root-phones/`).expect(404);
    await agent
      .post(`${list}scep/root-phones/delete`)
      .type('form')
      .send({ _csrf: formToken(page.text) })
      .expect(404);
    expect(await endpoints().findEnrolmentEndpoint('SCEP', 'root-phones')).not.toBeNull();
  });

  test('without change_certificateauthority on the CA: 403 for the page and every action, nothing written', async () => {
    await cliRunner(f.api.store)(['create_enrolment_endpoint', 'scep', 'kept', '--ca', f.api.ca.serial]);
    const before = await rows();
    const agent = await f.signIn('root_admin');
    // Theirs: the root's page answers.
    await agent.get(`${ADMIN}cas/${f.api.root.serial}/enrolment-endpoints/`).expect(200);
    const csrf = formToken((await agent.get(ADMIN).expect(200)).text, `${ADMIN}logout`);
    await agent.get(list).expect(403);
    await agent.get(`${list}scep/kept/`).expect(403);
    await agent
      .post(list)
      .type('form')
      .send({ ...FORM, _csrf: csrf })
      .expect(403);
    await agent
      .post(`${list}scep/kept/`)
      .type('form')
      .send({ ...FORM, _csrf: csrf, challenge: 'none' })
      .expect(403);
    await agent.post(`${list}scep/kept/delete`).type('form').send({ _csrf: csrf }).expect(403);
    expect(await rows()).toBe(before);
    // The CA's page offers no link to them either.
    const caPage = await (await f.signIn('root_admin')).get(`${ADMIN}cas/${f.api.ca.serial}/`);
    expect(caPage.text).not.toContain(`href="${list}"`);
  });

  test('a POST without the CSRF token is refused and writes nothing', async () => {
    const agent = await f.signIn('alice');
    const before = await rows();
    await agent
      .post(list)
      .type('form')
      .send({ ...FORM, label: 'forged' })
      .expect(403);
    expect(await rows()).toBe(before);
  });
});
