/**
 * Device enrolment administered from a host's own code (docs/reference/exports.md,
 * "Administration"): the functions behind `ca-admin`'s enrolment commands, imported from the package
 * entry — endpoints kept in the database, one-time challenges, requests waiting for approval — each
 * with ca-admin's rules, audited as the `actingAs` actor, on PGlite (PostgreSQL with TEST_DATABASE_URL).
 */
import * as crypto from 'crypto';
import {
  actingAs,
  approveEnrolmentRequest,
  CaError,
  createEnrolmentChallenge,
  createEnrolmentEndpoint,
  defaultProfiles,
  deleteEnrolmentEndpoint,
  editEnrolmentEndpoint,
  listEnrolmentEndpoints,
  listEnrolmentRequests,
  refuseEnrolmentRequest,
  type Actor,
  type EventLog,
} from '../../lib';
import { parseCertificate } from '../../lib/x509/certificate';
import { parseCsr } from '../../lib/x509/csr';
import { opensslCsr, setupApi, type ApiFixture } from '../api/fixture';

let f: ApiFixture;
const host: Actor = { type: 'operator', name: 'mdm-sync', protocol: 'host' };

beforeAll(async () => {
  f = await setupApi();
}, 120_000);

afterAll(async () => {
  await f?.close();
});

const events = () => f.store as unknown as EventLog;
const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

describe('enrolment endpoints kept in the database', () => {
  test('create, edit, list and delete, audited as the actor; the static challenge kept as its SHA-256', async () => {
    const store = actingAs(f.store, host);
    const before = await events().latestEventId();
    const made = await createEnrolmentEndpoint(store, 'SCEP', 'hosts', { ca: f.ca, challenge: 'device-secret-1', validityDays: 5 });
    expect(made).toMatchObject({ protocol: 'SCEP', label: 'hosts', caId: f.ca.id, validityDays: 5, enabled: true, profile: null });
    expect(made.challengeSha256).toBe(sha256('device-secret-1'));
    await editEnrolmentEndpoint(store, 'SCEP', 'hosts', { enabled: false, requestsPerMinute: 120 });
    expect((await listEnrolmentEndpoints(f.store)).find((e) => e.label === 'hosts')).toMatchObject({
      enabled: false,
      requestsPerMinute: 120,
    });
    await deleteEnrolmentEndpoint(store, 'SCEP', 'hosts');
    expect((await listEnrolmentEndpoints(f.store)).some((e) => e.label === 'hosts')).toBe(false);
    const audited = (await events().eventsSince(before)).filter((e) => e.type.startsWith('enrolment.endpoint.'));
    expect(audited.map((e) => [e.type, e.actor.name, e.actor.protocol])).toEqual([
      ['enrolment.endpoint.created', 'mdm-sync', 'host'],
      ['enrolment.endpoint.updated', 'mdm-sync', 'host'],
      ['enrolment.endpoint.deleted', 'mdm-sync', 'host'],
    ]);
    expect(JSON.stringify(audited)).not.toContain('device-secret-1');
  });

  test("ca-admin's rules: a profile is checked against the built-in profiles unless others are given", async () => {
    const refused = createEnrolmentEndpoint(f.store, 'EST', 'custom', { ca: f.ca, profile: 'devices' });
    await expect(refused).rejects.toThrow(CaError);
    await expect(refused).rejects.toThrow('devices: Profile is not defined.');
    const profiles = new Map([...defaultProfiles(), ['devices', defaultProfiles().get('client')!]]);
    await expect(createEnrolmentEndpoint(f.store, 'EST', 'custom', { ca: f.ca, profile: 'devices' }, { profiles })).resolves.toMatchObject({
      profile: 'devices',
    });
    await expect(createEnrolmentEndpoint(f.store, 'EST', 'cacerts', { ca: f.ca })).rejects.toThrow(/cannot be a label/);
    await expect(deleteEnrolmentEndpoint(f.store, 'EST', 'no-such')).rejects.toMatchObject({ code: 'not-found' });
    await deleteEnrolmentEndpoint(f.store, 'EST', 'custom');
  });
});

test('createEnrolmentChallenge: the secret returned once, kept as its SHA-256, bound to the names given', async () => {
  const made = await createEnrolmentChallenge(f.store, {
    protocol: 'scep',
    label: '',
    subject: [{ oid: '2.5.4.3', value: 'dev1.example.org' }],
    san: [{ type: 'DNS', value: 'dev1.example.org' }],
    validityMs: 3_600_000,
  });
  expect(made.secret).toMatch(/^[0-9a-f]{40}$/);
  const row = await f.db.knex('ca_api_enrolment_challenges').where({ id: made.id }).first();
  expect(row.secret_sha256).toBe(sha256(made.secret));
  expect(JSON.stringify(row)).not.toContain(made.secret);
  expect(JSON.stringify(row.subject)).toContain('dev1.example.org');
  expect(JSON.stringify(row.san)).toContain('"DNS"');
  expect(Math.abs(made.expires.getTime() - Date.now() - 3_600_000)).toBeLessThan(60_000);
});

describe('requests waiting for approval', () => {
  const keep = async (cn: string) => {
    return (await f.store.enrolmentRequests.createEnrolmentRequest({
      protocol: 'est',
      label: 'held',
      caId: f.ca.id,
      profile: 'client',
      validityDays: 3,
      csrDer: parseCsr(opensslCsr('EC', cn).csr).der,
      requester: { type: 'api_user', name: 'laptop-7', protocol: 'est' },
      requestKey: crypto.randomBytes(32).toString('hex'),
    }))!;
  };

  test('approve with the default profiles: signed at its CA, the device its requester, the operator its approver', async () => {
    const kept = await keep('laptop-7.example.org');
    expect((await listEnrolmentRequests(f.store, { status: 'pending', caId: f.ca.id })).map((r) => r.id)).toContain(kept.id);
    const before = await events().latestEventId();
    const { request, certificate } = await approveEnrolmentRequest(
      { store: f.store, keyBackends: { default: f.keyBackend } },
      kept.id,
      host,
    );
    expect(request).toMatchObject({ status: 'approved', certificateSerial: certificate.serial, decidedBy: { name: 'mdm-sync' } });
    const parsed = parseCertificate(certificate.der);
    expect(parsed.subject).toContainEqual(expect.objectContaining({ value: 'laptop-7.example.org' }));
    // The request's profile, found among the built-in ones, and its validity in days.
    expect(Math.round((parsed.notAfter.getTime() - parsed.notBefore.getTime()) / 86_400_000)).toBe(3);
    expect(certificate.profile).toBe('client');
    const seen = (await events().eventsSince(before)).map((e) => [e.type, e.actor.name]);
    expect(seen).toEqual(
      expect.arrayContaining([
        ['certificate.issued', 'laptop-7'],
        ['enrolment.approved', 'mdm-sync'],
      ]),
    );
    await expect(approveEnrolmentRequest({ store: f.store, keyBackends: { default: f.keyBackend } }, kept.id, host)).rejects.toThrow(
      `Enrolment request ${kept.id} was approved already.`,
    );
  });

  test('refuse with a reason; a refused request cannot be approved, and nothing is issued', async () => {
    const kept = await keep('laptop-8.example.org');
    const refused = await refuseEnrolmentRequest(f.store, kept.id, host, 'not in the inventory');
    expect(refused).toMatchObject({ status: 'refused', reason: 'not in the inventory' });
    const certificates = await f.db.knex('ca_api_certificates').count({ n: '*' });
    await expect(approveEnrolmentRequest({ store: f.store, keyBackends: { default: f.keyBackend } }, kept.id, host)).rejects.toMatchObject({
      code: 'conflict',
    });
    expect(await f.db.knex('ca_api_certificates').count({ n: '*' })).toEqual(certificates);
  });
});
