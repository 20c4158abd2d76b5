/**
 * SCEP's PKIOperation through the router (docs/guides/scep.md), on PGlite, with requests built as clients
 * build them and openssl reading the answers (test/helpers/scep-request.ts): enrolment and renewal on an
 * RSA CA and through the RA of an EC CA, GetCert, GetCRL (the CRL verified by openssl), and every refusal a signed FAILURE with the right
 * failInfo and nothing issued — a wrong or missing challenge, a request signed by another key, a bad
 * signature, an envelope for another recipient or with a broken key (the same answer as a bad
 * content), a renewal with a revoked or foreign certificate, algorithms turned off.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import request from 'supertest';
import { TABLES } from '../../adapters/store/knex/tables';
import { buildApp } from '../helpers/http';
import { API, setupApi, type ApiFixture } from '../api/fixture';
import { tlv } from '../../lib/x509/der-writer';
import { certificateIdentity } from '../../lib/x509/scep/certificate-identity';
import { createEnrolmentChallenge } from '../../lib/enrolment/challenges';
import { approveEnrolmentRequest, refuseEnrolmentRequest } from '../../lib/enrolment/approval';
import { resolveProfiles } from '../../lib/ca/profiles';
import { CHALLENGE_WEBHOOK_SECRET, challengeWebhookServer, type ChallengeWebhookServer } from '../helpers/challenge-webhook';
import { binary, buildRequest, certsOf, csrOf, envelope, makeDevice, readCertRep, type Device } from '../helpers/scep-request';
import { cliRunner } from '../cli/helpers';

let f: ApiFixture;
let built: ReturnType<typeof buildApp>;
let strict: ReturnType<typeof buildApp>;
let dir: string;
let raPem: string;
let ecRaPem: string;
const SCEP = '/django_ca/scep';
const CHALLENGE = 'device-secret';
const PKCS_REQ = 19;
const RENEWAL_REQ = 17;

const certificateCount = async () => Number((await f.db.knex(TABLES.certificates).count({ n: '*' }))[0].n);

/** The host's challenge webhook of the label `hooked`: its answer chosen by the challenge. */
let hook: ChallengeWebhookServer;
const warnings: { message: string; fields: unknown }[] = [];
const logger = {
  info: () => undefined,
  warn: (message: string, fields?: unknown) => void warnings.push({ message, fields }),
  error: () => undefined,
  child: () => logger,
};

beforeAll(async () => {
  const allowedOnce = new Set<string>();
  hook = await challengeWebhookServer((asked) => {
    const c = asked.data.challenge;
    if (c.startsWith('yes')) return { status: 200, body: '{"allow": true}' };
    // A host that allows each of these challenges once, as a host keeping its own one-time challenges would.
    if (c.startsWith('once')) {
      const allow = !allowedOnce.has(c);
      allowedOnce.add(c);
      return { status: 200, body: JSON.stringify({ allow }) };
    }
    if (c === 'no') return { status: 200, body: '{"allow": false}' };
    if (c === 'server-error') return { status: 500, body: '{"allow": true}' };
    if (c === 'not-json') return { status: 200, body: 'allow' };
    if (c === 'too-long') return { status: 200, body: `{"allow": true, "pad": "${'x'.repeat(70_000)}"}` };
    return 'hang';
  });
  f = await setupApi();
  const rsa = await f.makeCa({ name: 'rsa devices', keyType: 'RSA', keySize: 2048, apiEnabled: true });
  const scep = {
    enabled: true,
    ca: rsa.name,
    challenge: CHALLENGE,
    labels: {
      ec: { ca: f.ca.serial, challenge: 'ec-secret' },
      held: { ca: rsa.name, challenge: 'held-secret', approval: true },
      limited: { ca: rsa.name, challenge: CHALLENGE, requestsPerMinute: 1 },
      policed: { ca: rsa.name, challenge: CHALLENGE, names: { allow: ['devices.example.org'], deny: [], subjectAttributes: ['CN'] } },
      hooked: {
        ca: rsa.name,
        challenge: 'hooked-static',
        challengeWebhook: { url: hook.url, secret: CHALLENGE_WEBHOOK_SECRET, timeoutMs: 500 },
      },
    },
  };
  const common = { enableRestApi: true, store: f.store, keyBackends: { default: f.keyBackend } };
  built = buildApp({ ...common, scep, logger });
  strict = buildApp({ ...common, scep: { ...scep, legacyAlgorithms: false } });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scep-op-'));
  const caCert = async (p: string) =>
    certsOf((await request(built.app).get(`${SCEP}${p}?operation=GetCACert`).buffer(true).parse(binary)).body as Buffer)[0];
  raPem = await caCert('');
  ecRaPem = await caCert('/ec');
});
afterAll(async () => {
  await built?.close();
  await strict?.close();
  await f?.close();
  await hook?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function post(message: Buffer, device: Device, label = '', app = built.app) {
  const res = await request(app)
    .post(`${SCEP}${label}?operation=PKIOperation`)
    .set('Content-Type', 'application/octet-stream')
    .send(message)
    .buffer(true)
    .parse(binary);
  expect([res.status, res.headers['content-type']]).toEqual([200, 'application/x-pki-message']);
  return readCertRep(dir, res.body as Buffer, device);
}

const enrolment = (
  device: Device,
  cn: string,
  challenge: string | undefined,
  o: { recipient?: string; cipher?: string; digest?: 'sha1' | 'sha256' } = {},
) =>
  buildRequest({
    signer: device,
    content: envelope(dir, csrOf(dir, device.key, cn, challenge), o.recipient ?? raPem, o.cipher),
    messageType: PKCS_REQ,
    digest: o.digest,
  });

describe('PKCSReq', () => {
  test('with the challenge: SUCCESS, the certificate encrypted to the device, issued by the CA, in the REST inventory', async () => {
    const device = makeDevice(dir, 'dev1');
    const message = enrolment(device, 'dev1.example.org', CHALLENGE);
    const seen = await post(message, device);
    expect(seen).toMatchObject({ status: '0', failInfo: null });
    expect(seen.certificates).toHaveLength(1);
    const text = execFileSync('openssl', ['x509', '-noout', '-subject', '-issuer', '-ext', 'subjectAltName'], {
      input: seen.certificates[0],
    }).toString();
    expect(text).toMatch(/subject=CN = dev1\.example\.org/);
    expect(text).toMatch(/issuer=CN = rsa devices/);
    expect(text).toContain('DNS:dev1.example.org');
    expect(text).not.toMatch(/challenge/i);
    const serial = execFileSync('openssl', ['x509', '-noout', '-serial'], { input: seen.certificates[0] })
      .toString()
      .trim()
      .replace(/^serial=0*/, '');
    const rsaCa = (await f.db.knex(TABLES.cas).where({ name: 'rsa devices' }).first()) as { serial: string };
    const listed = await request(built.app).get(`${API}/ca/${rsaCa.serial}/certs/${serial}/`).set(f.auth('alice'));
    expect(listed.status).toBe(200);
  });

  test('the legacy ciphers and digests, and GET with base64url as micromdm sends it', async () => {
    const device = makeDevice(dir, 'dev2');
    expect((await post(enrolment(device, 'dev2.example.org', CHALLENGE, { cipher: '-des3', digest: 'sha1' }), device)).status).toBe('0');
    const message = enrolment(device, 'dev2b.example.org', CHALLENGE, { cipher: '-aes256' });
    const res = await request(built.app)
      .get(`${SCEP}/pkiclient.exe?operation=PKIOperation&message=${encodeURIComponent(message.toString('base64url'))}`)
      .buffer(true)
      .parse(binary);
    expect(readCertRep(dir, res.body as Buffer, device).status).toBe('0');
  });

  test('through the RSA RA of an EC CA, with that label’s challenge', async () => {
    const device = makeDevice(dir, 'dev3');
    const seen = await post(enrolment(device, 'dev3.example.org', 'ec-secret', { recipient: ecRaPem }), device, '/ec');
    expect(seen.status).toBe('0');
    expect(execFileSync('openssl', ['x509', '-noout', '-text'], { input: seen.certificates[0] }).toString()).toMatch(
      /Issuer: CN ?= ?.*Intermediate|Issuer: CN ?= ?child/,
    );
  });

  test.each([
    ['a wrong challenge', 'not-it', false, /challenge password is missing or wrong/],
    ['no challenge', undefined, false, /challenge password is missing or wrong/],
    ['a CSR of another key than the signer’s', CHALLENGE, true, /signed with the key of its certificate request/],
  ])('%s: FAILURE badRequest with the reason, nothing issued', async (_what, challenge, other, text) => {
    const device = makeDevice(dir, `refused-${Math.random().toString(16).slice(2, 8)}`);
    const csrKey = other ? makeDevice(dir, `other-${Math.random().toString(16).slice(2, 6)}`).key : device.key;
    const message = buildRequest({
      signer: device,
      content: envelope(dir, csrOf(dir, csrKey, 'refused.example.org', challenge), raPem),
      messageType: PKCS_REQ,
      transactionId: 'T-1',
      senderNonce: Buffer.alloc(16, 7),
    });
    const before = await certificateCount();
    const seen = await post(message, device);
    expect(seen).toMatchObject({ status: '2', failInfo: '2', transactionId: 'T-1', certificates: [] });
    expect(seen.failInfoText).toMatch(text);
    expect(seen.recipientNonce.replace(/[^0-9a-f]/gi, '').toLowerCase()).toContain('07070707');
    expect(await certificateCount()).toBe(before);
  });

  test('a bad signature, another recipient, a broken key block, a broken content: badMessageCheck, nothing issued', async () => {
    const device = makeDevice(dir, 'dev4');
    const stranger = makeDevice(dir, 'stranger');
    const before = await certificateCount();
    const badSignature = buildRequest({
      signer: device,
      content: envelope(dir, csrOf(dir, device.key, 'dev4.example.org', CHALLENGE), raPem),
      messageType: PKCS_REQ,
      signWith: stranger.keyPem,
    });
    const otherRecipient = enrolment(device, 'dev4.example.org', CHALLENGE, { recipient: fs.readFileSync(stranger.cert, 'utf8') });
    // The key block replaced by random bytes below the modulus: raw RSA yields a block without PKCS#1 padding.
    const sealed = envelope(dir, csrOf(dir, device.key, 'dev4.example.org', CHALLENGE), raPem);
    const at = sealed.indexOf(Buffer.from([0x04, 0x82, 0x01, 0x00])); // encryptedKey OCTET STRING of 256 octets
    expect(at).toBeGreaterThan(0);
    const broken = Buffer.from(sealed);
    broken.fill(0x11, at + 4, at + 4 + 256);
    const brokenKey = buildRequest({ signer: device, content: broken, messageType: PKCS_REQ });
    // The right key, a content whose padding cannot be right: the last byte of the next-to-last AES
    // block flipped flips the pad byte above 16.
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 16 - 1] ^= 0x80;
    const badContent = buildRequest({ signer: device, content: tampered, messageType: PKCS_REQ });
    // The right key and a content that decrypts but is no CSR: the same answer too (no padding oracle one level up).
    const notCsr = buildRequest({ signer: device, content: envelope(dir, Buffer.alloc(300, 0x42), raPem), messageType: PKCS_REQ });
    const answers = [];
    for (const message of [badSignature, otherRecipient, brokenKey, badContent, notCsr]) answers.push(await post(message, device));
    for (const seen of answers) expect(seen).toMatchObject({ status: '2', failInfo: '1', certificates: [] });
    // A wrong padding and a wrong content: the same answer, with no text that could tell them apart.
    const { transactionId: _t1, recipientNonce: _n1, ...brokenAnswer } = answers[2];
    const { transactionId: _t2, recipientNonce: _n2, ...contentAnswer } = answers[3];
    expect(brokenAnswer).toEqual(contentAnswer);
    const { transactionId: _t3, recipientNonce: _n3, ...notCsrAnswer } = answers[4];
    expect(notCsrAnswer).toEqual(contentAnswer);
    expect(brokenAnswer.failInfoText).toBeNull();
    expect(await certificateCount()).toBe(before);
  });

  test('with the legacy algorithms turned off, single or triple DES and SHA-1 are badAlg; AES and SHA-256 enrol', async () => {
    const device = makeDevice(dir, 'dev5');
    expect(await post(enrolment(device, 'dev5.example.org', CHALLENGE, { cipher: '-des3' }), device, '', strict.app)).toMatchObject({
      status: '2',
      failInfo: '0',
    });
    expect(await post(enrolment(device, 'dev5.example.org', CHALLENGE, { digest: 'sha1' }), device, '', strict.app)).toMatchObject({
      status: '2',
      failInfo: '0',
    });
    expect((await post(enrolment(device, 'dev5.example.org', CHALLENGE), device, '', strict.app)).status).toBe('0');
    const caps = await request(strict.app).get(`${SCEP}?operation=GetCACaps`);
    expect(caps.text.split('\n')).toEqual(['POSTPKIOperation', 'Renewal', 'SHA-256', 'SHA-384', 'SHA-512', 'AES', 'SCEPStandard']);
  });
});

/** A PKIOperation at `label` whose message cannot be read: counted against the budget, then 400. */
const unreadableOperation = (label: string) =>
  request(built.app)
    .post(`${SCEP}/${label}?operation=PKIOperation`)
    .set('Content-Type', 'application/octet-stream')
    .send(Buffer.from('garbage'));

describe('requestsPerMinute (scep.labels.limited)', () => {
  test('PKIOperations over the budget: HTTP 429 with Retry-After before the message is read; GetCACaps is not counted', async () => {
    const operation = () => unreadableOperation('limited');
    expect((await operation()).status).toBe(400); // counted, then refused as unreadable
    expect((await request(built.app).get(`${SCEP}/limited?operation=GetCACaps`)).status).toBe(200);
    const over = await operation();
    expect(over.status).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(over.text).toContain('Too many requests at this SCEP endpoint: it takes 1 a minute.');
    expect((await operation()).status).toBe(429);
  });
});

describe('name policy (scep.labels.policed.names)', () => {
  test('a name the policy allows: SUCCESS with exactly that name', async () => {
    const device = makeDevice(dir, 'policed-ok');
    const seen = await post(enrolment(device, 'p1.devices.example.org', CHALLENGE), device, '/policed');
    expect(seen.status).toBe('0');
    const san = execFileSync('openssl', ['x509', '-noout', '-ext', 'subjectAltName'], { input: seen.certificates[0] }).toString();
    expect(san.split('\n')[1].trim()).toBe('DNS:p1.devices.example.org');
  });

  test('a name outside it: FAILURE badRequest naming it, nothing issued', async () => {
    const device = makeDevice(dir, 'policed-no');
    const before = await certificateCount();
    const seen = await post(enrolment(device, 'p2.example.com', CHALLENGE), device, '/policed');
    expect(seen).toMatchObject({ status: '2', failInfo: '2', certificates: [] });
    expect(seen.failInfoText).toBe(
      "The endpoint's name policy refuses the request: the commonName p2.example.com is not among the allowed names; DNS:p2.example.com is not among the allowed names.",
    );
    expect(await certificateCount()).toBe(before);
  });
});

describe('challenge webhook (scep.labels.hooked.challengeWebhook)', () => {
  let refusedDevice: Device | undefined;

  test('a challenge the webhook allows: SUCCESS; it was asked, signed, about this request', async () => {
    const device = makeDevice(dir, 'hooked-yes');
    const asked = hook.asked.length;
    const message = buildRequest({
      signer: device,
      content: envelope(dir, csrOf(dir, device.key, 'hooked.example.org', 'yes-7'), raPem),
      messageType: PKCS_REQ,
      transactionId: 'T-hooked',
    });
    const seen = await post(message, device, '/hooked');
    expect(seen.status).toBe('0');
    expect(hook.unsigned).toBe(0);
    expect(hook.asked).toHaveLength(asked + 1);
    const rsaCa = (await f.db.knex(TABLES.cas).where({ name: 'rsa devices' }).first()) as { serial: string };
    const { type, data } = hook.asked[asked];
    expect(type).toBe('enrolment.challenge');
    expect(data).toMatchObject({
      protocol: 'scep',
      label: 'hooked',
      ca_serial: rsaCa.serial,
      challenge: 'yes-7',
      subject: [{ oid: '2.5.4.3', value: 'hooked.example.org' }],
      san: [{ type: 'DNS', value: 'hooked.example.org' }],
      transaction_id: 'T-hooked',
    });
    expect(execFileSync('openssl', ['req', '-noout', '-subject'], { input: data.csr }).toString()).toMatch(/CN ?= ?hooked\.example\.org/);
    const event = await f.db.knex('ca_api_events').where({ type: 'certificate.issued' }).orderBy('id', 'desc').first();
    expect(event.actor).toMatchObject({ type: 'challenge', name: 'challenge webhook hooked', protocol: 'scep' });
  });

  test('the static challenge is not sent to the webhook', async () => {
    const device = makeDevice(dir, 'hooked-static');
    const asked = hook.asked.length;
    expect((await post(enrolment(device, 'hooked-static.example.org', 'hooked-static'), device, '/hooked')).status).toBe('0');
    expect(hook.asked).toHaveLength(asked);
  });

  test.each([
    ['says no', 'no', 'an answer without "allow": true'],
    ['answers 500', 'server-error', 'HTTP 500'],
    ['answers what is not JSON', 'not-json', 'an answer that is not JSON'],
    ['answers more than 64 KiB', 'too-long', 'an answer larger than 65536 bytes'],
    ['does not answer (timeoutMs 500)', 'hang', 'no answer within 500 ms'],
  ])('a webhook that %s: FAILURE badRequest, nothing issued, a log line without the challenge', async (_what, challenge, reason) => {
    // One device for all these refusals (each a new transaction): nothing of it is kept.
    refusedDevice ??= makeDevice(dir, 'hooked-refused');
    const device = refusedDevice;
    const before = await certificateCount();
    warnings.length = 0;
    const seen = await post(enrolment(device, 'refused.example.org', challenge), device, '/hooked');
    expect(seen).toMatchObject({
      status: '2',
      failInfo: '2',
      failInfoText: 'The challenge password is missing or wrong.',
      certificates: [],
    });
    expect(await certificateCount()).toBe(before);
    expect(warnings).toEqual([
      {
        message: 'express-ca-api: the challenge webhook refused an enrolment',
        fields: { protocol: 'scep', label: 'hooked', url: hook.url, reason },
      },
    ]);
    expect(JSON.stringify(warnings)).not.toContain(CHALLENGE_WEBHOOK_SECRET.slice(6));
  });

  test('options: a URL that is not http(s), a secret not in whsec_ form, a bad timeout are refused, naming the option', () => {
    const common = { enableRestApi: true, store: f.store, keyBackends: { default: f.keyBackend } };
    const withHook = (challengeWebhook: unknown) => () =>
      buildApp({ ...common, scep: { enabled: true, labels: { x: { ca: 'a', challengeWebhook } } } as never });
    expect(withHook({ url: 'ftp://127.0.0.1/', secret: CHALLENGE_WEBHOOK_SECRET })).toThrow(
      /option `scep.labels.x.challengeWebhook.url` must be an http:\/\/ or https:\/\/ URL/,
    );
    expect(withHook({ url: hook.url, secret: 'hunter2' })).toThrow(/option `scep.labels.x.challengeWebhook.secret` must be whsec_/);
    expect(withHook({ url: hook.url, secret: 'hunter2' })).not.toThrow(/hunter2/);
    expect(withHook({ url: hook.url, secret: CHALLENGE_WEBHOOK_SECRET, timeoutMs: 0 })).toThrow(
      /option `scep.labels.x.challengeWebhook.timeoutMs` must be an integer from 100 to 60000/,
    );
    expect(withHook({ url: hook.url, secret: CHALLENGE_WEBHOOK_SECRET, retries: 1 })).toThrow(/unknown option `retries`/);
  });
});

describe('one-time challenges (ca-admin create_enrolment_challenge)', () => {
  const make = (o: Partial<Parameters<typeof createEnrolmentChallenge>[1]> = {}, now?: Date) =>
    createEnrolmentChallenge(f.store, { protocol: 'scep', label: '', subject: null, san: null, validityMs: 3_600_000, ...o }, now);

  test('enrols once, named as the requester; a second use is badRequest and issues nothing', async () => {
    const { id, secret } = await make();
    const device = makeDevice(dir, 'once');
    expect((await post(enrolment(device, 'once.example.org', secret), device)).status).toBe('0');
    const row = await f.db.knex('ca_api_enrolment_challenges').where({ id }).first();
    expect(row.used).not.toBeNull();
    expect(row.secret_sha256).not.toContain(secret);
    const issued = await f.db.knex(TABLES.certificates).where({ serial: row.certificate_serial }).first();
    expect(issued.cn).toBe('once.example.org');
    const event = await f.db.knex('ca_api_events').where({ type: 'certificate.issued', serial: row.certificate_serial }).first();
    expect(event.actor).toMatchObject({ type: 'challenge', name: `one-time challenge ${id}`, protocol: 'scep' });

    const before = await certificateCount();
    const again = await post(enrolment(makeDevice(dir, 'twice'), 'twice.example.org', secret), device);
    expect(again).toMatchObject({ status: '2', failInfo: '2', failInfoText: 'The challenge password is missing or wrong.' });
    expect(await certificateCount()).toBe(before);
  });

  test('two requests racing with one challenge: one certificate', async () => {
    const { secret } = await make();
    const [a, b] = [makeDevice(dir, 'race-a'), makeDevice(dir, 'race-b')];
    const before = await certificateCount();
    const answers = await Promise.all([
      post(enrolment(a, 'race-a.example.org', secret), a),
      post(enrolment(b, 'race-b.example.org', secret), b),
    ]);
    expect(answers.map((x) => x.status).sort()).toEqual(['0', '2']);
    expect(await certificateCount()).toBe(before + 1);
  });

  test.each([
    ['expired', () => make({}, new Date(Date.now() - 7_200_000)), 'late.example.org', ''],
    ['for another label', () => make({ label: 'ec' }), 'label.example.org', ''],
    ['bound to another subject', () => make({ subject: [{ oid: '2.5.4.3', value: 'bound.example.org' }] }), 'other.example.org', ''],
    ['bound to other subjectAltNames', () => make({ san: [{ type: 'DNS', value: 'elsewhere.example.org' }] }), 'san.example.org', ''],
  ])('%s: badRequest, nothing issued, the challenge still unused', async (_what, made, cn, label) => {
    const { id, secret } = await made();
    const device = makeDevice(dir, `refused-${id}`);
    const before = await certificateCount();
    expect(await post(enrolment(device, cn, secret), device, label)).toMatchObject({ status: '2', failInfo: '2' });
    expect(await certificateCount()).toBe(before);
    expect((await f.db.knex('ca_api_enrolment_challenges').where({ id }).first()).used).toBeNull();
  });

  test('bound to a subject and subjectAltNames: a CSR asking for exactly those enrols', async () => {
    const { secret } = await make({
      subject: [{ oid: '2.5.4.3', value: 'exact.example.org' }],
      san: [{ type: 'DNS', value: 'exact.example.org' }],
    });
    const device = makeDevice(dir, 'exact');
    expect((await post(enrolment(device, 'exact.example.org', secret), device)).status).toBe('0');
  });
});

describe('endpoints kept in the database (ca-admin create_enrolment_endpoint)', () => {
  test('its static challenge (printed once) and its one-time challenges enrol at its label with its validity; an option label beats it', async () => {
    const caAdmin = cliRunner(f.store);
    const made = await caAdmin([
      'create_enrolment_endpoint',
      'scep',
      'fleet',
      '--ca',
      'rsa devices',
      '--challenge',
      'generate',
      '--validity',
      '7',
    ]);
    const [, secret] = /^challenge: ([0-9a-f]{40})\n$/.exec(made.stdout) ?? [];
    const device = makeDevice(dir, 'fleet1');
    const seen = await post(enrolment(device, 'fleet1.example.org', secret), device, '/fleet');
    expect(seen).toMatchObject({ status: '0', failInfo: null });
    const notAfter = execFileSync('openssl', ['x509', '-noout', '-enddate'], { input: seen.certificates[0] }).toString().trim().slice(9);
    expect(Math.abs(new Date(notAfter).getTime() - (Date.now() + 7 * 86_400_000))).toBeLessThan(3 * 60_000);

    const before = await certificateCount();
    const wrong = makeDevice(dir, 'fleet2');
    expect(await post(enrolment(wrong, 'fleet2.example.org', CHALLENGE), wrong, '/fleet')).toMatchObject({ status: '2', failInfo: '2' });
    expect(await certificateCount()).toBe(before);

    const oneTime = await caAdmin(['create_enrolment_challenge', 'scep/fleet']);
    const [, once] = /challenge: ([0-9a-f]{40})\n/.exec(oneTime.stdout) ?? [];
    const third = makeDevice(dir, 'fleet3');
    expect((await post(enrolment(third, 'fleet3.example.org', once), third, '/fleet')).status).toBe('0');

    // scep.labels.ec is the deployer's word: the stored endpoint of that label, and its challenge, are not used.
    const shadowed = await caAdmin(['create_enrolment_endpoint', 'scep', 'ec', '--ca', 'rsa devices', '--challenge', 'generate']);
    const [, shadowedSecret] = /^challenge: ([0-9a-f]{40})\n$/.exec(shadowed.stdout) ?? [];
    const ec = makeDevice(dir, 'fleet-ec');
    expect(await post(enrolment(ec, 'ec.example.org', shadowedSecret, { recipient: ecRaPem }), ec, '/ec')).toMatchObject({ status: '2' });
    expect((await post(enrolment(ec, 'ec.example.org', 'ec-secret', { recipient: ecRaPem }), ec, '/ec')).status).toBe('0');

    expect((await caAdmin(['edit_enrolment_endpoint', 'scep', 'fleet', '--disable'])).code).toBe(0);
    const disabled = await request(built.app).get(`${SCEP}/fleet?operation=GetCACaps`);
    expect(disabled.status).toBe(404);
  });

  test('--requests-per-minute: over the budget, HTTP 429 with Retry-After before the message is read', async () => {
    const caAdmin = cliRunner(f.store);
    const made = await caAdmin(['create_enrolment_endpoint', 'scep', 'budget', '--ca', 'rsa devices', '--requests-per-minute', '1']);
    expect(made).toMatchObject({ code: 0, stderr: '' });
    const operation = () => unreadableOperation('budget');
    expect((await operation()).status).toBe(400); // counted, then refused as unreadable
    const over = await operation();
    expect([over.status, Number(over.headers['retry-after']) >= 1]).toEqual([429, true]);
    expect(over.text).toContain('Too many requests at this SCEP endpoint: it takes 1 a minute.');
    // Cleared: no budget from the next request on.
    expect((await caAdmin(['edit_enrolment_endpoint', 'scep', 'budget', '--no-requests-per-minute'])).code).toBe(0);
    expect((await operation()).status).toBe(400);
  });

  test("--challenge webhook: the options' scep.challengeWebhook decides; where the options have none, refused and logged", async () => {
    const caAdmin = cliRunner(f.store);
    expect(
      await caAdmin(['create_enrolment_endpoint', 'scep', 'db-hooked', '--ca', 'rsa devices', '--challenge', 'webhook']),
    ).toMatchObject({
      code: 0,
    });
    const withHook = buildApp({
      enableRestApi: true,
      store: f.store,
      keyBackends: { default: f.keyBackend },
      scep: { enabled: true, ca: 'rsa devices', challengeWebhook: { url: hook.url, secret: CHALLENGE_WEBHOOK_SECRET, timeoutMs: 500 } },
      logger,
    });
    try {
      const device = makeDevice(dir, 'db-hooked');
      const asked = hook.asked.length;
      const seen = await post(enrolment(device, 'db-hooked.example.org', 'yes-db'), device, '/db-hooked', withHook.app);
      expect(seen.status).toBe('0');
      expect(hook.asked.slice(asked).map((a) => [a.data.label, a.data.challenge])).toEqual([['db-hooked', 'yes-db']]);
      const before = await certificateCount();
      const refused = await post(enrolment(device, 'db-hooked.example.org', 'no'), device, '/db-hooked', withHook.app);
      expect(refused).toMatchObject({ status: '2', failInfo: '2', failInfoText: 'The challenge password is missing or wrong.' });
      expect(await certificateCount()).toBe(before);

      // The router of this suite has no scep.challengeWebhook: nobody is asked, nothing is issued, the operator is told why.
      warnings.length = 0;
      const other = makeDevice(dir, 'db-hooked-none');
      const none = await post(enrolment(other, 'db-hooked-none.example.org', 'yes-none'), other, '/db-hooked');
      expect(none).toMatchObject({ status: '2', failInfo: '2', failInfoText: 'The challenge password is missing or wrong.' });
      expect(hook.asked.length).toBe(asked + 2);
      expect(await certificateCount()).toBe(before);
      expect(warnings).toEqual([
        {
          message: 'express-ca-api: the challenge webhook refused an enrolment',
          fields: {
            protocol: 'scep',
            label: 'db-hooked',
            url: '',
            reason: "the endpoint uses the protocol's challenge webhook, but option `scep.challengeWebhook` is not set",
          },
        },
      ]);
      expect(JSON.stringify(warnings)).not.toContain('yes-none');
    } finally {
      await withHook.close();
    }
  });
});

describe('a repeated transaction (a lost answer, micromdm re-sending its PKCSReq)', () => {
  const serialOf = (pem: string) => execFileSync('openssl', ['x509', '-noout', '-serial'], { input: pem }).toString().trim();

  test('the same request again, and two at once: the first certificate each time, one issued, the one-time challenge used once', async () => {
    const { secret } = await createEnrolmentChallenge(f.store, {
      protocol: 'scep',
      label: '',
      subject: null,
      san: null,
      validityMs: 3_600_000,
    });
    const device = makeDevice(dir, 'repeat');
    const message = enrolment(device, 'repeat.example.org', secret);
    const before = await certificateCount();
    const first = await post(message, device);
    expect(first.status).toBe('0');
    const again = await post(message, device);
    expect(again.status).toBe('0');
    expect(serialOf(again.certificates[0])).toBe(serialOf(first.certificates[0]));
    expect(await certificateCount()).toBe(before + 1);

    const racing = enrolment(device, 'racing.example.org', CHALLENGE);
    const [a, b] = await Promise.all([post(racing, device), post(racing, device)]);
    expect([a.status, b.status]).toEqual(['0', '0']);
    expect(serialOf(a.certificates[0])).toBe(serialOf(b.certificates[0]));
    expect(await certificateCount()).toBe(before + 2);
  });

  test('a repetition at a webhook endpoint whose host allows its challenge once: the first certificate again, none more', async () => {
    const device = makeDevice(dir, 'hooked-repeat');
    const message = buildRequest({
      signer: device,
      content: envelope(dir, csrOf(dir, device.key, 'hooked-repeat.example.org', 'once-1'), raPem),
      messageType: PKCS_REQ,
      transactionId: 'T-hooked-repeat',
    });
    const before = await certificateCount();
    const asked = hook.asked.length;
    const first = await post(message, device, '/hooked');
    expect(first.status).toBe('0');
    // The repetition is checked again (issuing is tried first, lib/enrolment/transactions.ts): the host says no now…
    const again = await post(message, device, '/hooked');
    expect(hook.asked).toHaveLength(asked + 2);
    // …and the device still gets its certificate, the only one.
    expect(again.status).toBe('0');
    expect(serialOf(again.certificates[0])).toBe(serialOf(first.certificates[0]));
    expect(await certificateCount()).toBe(before + 1);
  });

  test('the same transaction signed by another key is no repetition: it is judged as a request of its own', async () => {
    const device = makeDevice(dir, 'victim');
    const envelopeDer = envelope(dir, csrOf(dir, device.key, 'victim.example.org', CHALLENGE), raPem);
    expect(
      (await post(buildRequest({ signer: device, content: envelopeDer, messageType: PKCS_REQ, transactionId: 'TX-V' }), device)).status,
    ).toBe('0');
    const thief = makeDevice(dir, 'thief');
    const replayed = await post(buildRequest({ signer: thief, content: envelopeDer, messageType: PKCS_REQ, transactionId: 'TX-V' }), thief);
    expect(replayed).toMatchObject({ status: '2', failInfo: '2', certificates: [] });
  });
});

describe('RenewalReq and GetCert', () => {
  let device: Device;
  let issuedPem: string;
  let issued: Device;

  beforeAll(async () => {
    device = makeDevice(dir, 'renew');
    issuedPem = (await post(enrolment(device, 'renew.example.org', CHALLENGE), device)).certificates[0];
    fs.writeFileSync(path.join(dir, 'renew-issued.pem'), issuedPem);
    // The issued certificate signs the renewal, with the key it was issued for.
    issued = {
      key: device.key,
      keyPem: device.keyPem,
      cert: path.join(dir, 'renew-issued.pem'),
      certDer: execFileSync('openssl', ['x509', '-outform', 'DER'], { input: issuedPem }),
    };
  });

  const renewal = (signer: Device, cn: string) =>
    buildRequest({ signer, content: envelope(dir, csrOf(dir, signer.key, cn), raPem), messageType: RENEWAL_REQ });

  test('signed by the certificate being renewed: SUCCESS without a challenge; another subject is badCertId', async () => {
    const seen = await post(renewal(issued, 'renew.example.org'), issued);
    expect(seen.status).toBe('0');
    expect(seen.certificates[0]).not.toBe(issuedPem);
    const other = await post(renewal(issued, 'other.example.org'), issued);
    expect(other).toMatchObject({ status: '2', failInfo: '4' });
    expect(other.failInfoText).toBe('The subject and subjectAltName of the request must be those of the certificate being renewed.');
  });

  test('at an endpoint whose name policy does not allow its names (tightened since): FAILURE badRequest, nothing issued', async () => {
    const before = await certificateCount();
    const seen = await post(renewal(issued, 'renew.example.org'), issued, '/policed');
    expect(seen).toMatchObject({ status: '2', failInfo: '2', certificates: [] });
    expect(seen.failInfoText).toMatch(/^The endpoint's name policy refuses the request: the commonName renew\.example\.org is not among/);
    expect(await certificateCount()).toBe(before);
  });

  test('at an endpoint kept in the database: its validity applies, its approval holds no renewal, its name policy refuses', async () => {
    const caAdmin = cliRunner(f.store);
    const made = await caAdmin([
      ...['create_enrolment_endpoint', 'scep', 'db-renew', '--ca', 'rsa devices', '--challenge', 'generate'],
      ...['--approval', '--validity', '7', '--allow', 'renew.example.org'],
    ]);
    expect(made.code).toBe(0);
    const seen = await post(renewal(issued, 'renew.example.org'), issued, '/db-renew');
    expect(seen).toMatchObject({ status: '0', failInfo: null });
    const notAfter = execFileSync('openssl', ['x509', '-noout', '-enddate'], { input: seen.certificates[0] }).toString().trim().slice(9);
    expect(Math.abs(new Date(notAfter).getTime() - (Date.now() + 7 * 86_400_000))).toBeLessThan(3 * 60_000);
    expect(await f.db.knex(TABLES.enrolmentRequests).where({ label: 'db-renew' })).toEqual([]); // nothing waits

    expect((await caAdmin(['edit_enrolment_endpoint', 'scep', 'db-renew', '--allow', 'elsewhere.example.org'])).code).toBe(0);
    const before = await certificateCount();
    const refused = await post(renewal(issued, 'renew.example.org'), issued, '/db-renew');
    expect(refused).toMatchObject({ status: '2', failInfo: '2', certificates: [] });
    expect(refused.failInfoText).toMatch(
      /^The endpoint's name policy refuses the request: the commonName renew\.example\.org is not among/,
    );
    expect(await certificateCount()).toBe(before);
    await caAdmin(['delete_enrolment_endpoint', 'scep', 'db-renew']);
  });

  test('GetCert answers the certificate by issuer and serial; an unknown serial is badCertId; CertPoll finds nothing pending', async () => {
    const { issuer, serial } = certificateIdentity(issued.certDer);
    const getCert = (serialTlv: Buffer) =>
      buildRequest({ signer: device, content: envelope(dir, tlv(0x30, issuer, serialTlv), raPem), messageType: 21 });
    const found = await post(getCert(serial), device);
    expect(found.status).toBe('0');
    expect(found.certificates).toEqual([issuedPem]);
    expect(await post(getCert(tlv(0x02, Buffer.from([0x01, 0x23]))), device)).toMatchObject({ status: '2', failInfo: '4' });
    const poll = buildRequest({ signer: device, content: envelope(dir, tlv(0x30, issuer, issuer), raPem), messageType: 20 });
    expect(await post(poll, device)).toMatchObject({ status: '2', failInfo: '4' });
  });

  test('a revoked certificate, and a self-signed one, renew nothing: badCertId', async () => {
    const serial = execFileSync('openssl', ['x509', '-noout', '-serial'], { input: issuedPem })
      .toString()
      .trim()
      .replace(/^serial=0*/, '');
    const rsaCa = (await f.db.knex(TABLES.cas).where({ name: 'rsa devices' }).first()) as { serial: string };
    expect((await request(built.app).post(`${API}/ca/${rsaCa.serial}/certs/${serial}/revoke/`).set(f.auth('alice')).send({})).status).toBe(
      200,
    );
    const before = await certificateCount();
    expect(await post(renewal(issued, 'renew.example.org'), issued)).toMatchObject({ status: '2', failInfo: '4' });
    expect(await post(renewal(device, 'renew.example.org'), device)).toMatchObject({ status: '2', failInfo: '4' });
    expect(await certificateCount()).toBe(before);
  });

  test("GetCRL answers the CA's CRL, signed by the CA and listing the revoked certificate; another issuer is badCertId", async () => {
    const { issuer, serial } = certificateIdentity(issued.certDer);
    const getCrl = (issuerDer: Buffer) =>
      buildRequest({ signer: device, content: envelope(dir, tlv(0x30, issuerDer, serial), raPem), messageType: 22 });
    const seen = await post(getCrl(issuer), device);
    expect(seen).toMatchObject({ status: '0', failInfo: null, certificates: [] });
    expect(seen.crls).toHaveLength(1);
    const caPem = certsOf((await request(built.app).get(`${SCEP}?operation=GetCACert`).buffer(true).parse(binary)).body as Buffer)[1];
    fs.writeFileSync(path.join(dir, 'rsa-ca.pem'), caPem);
    fs.writeFileSync(path.join(dir, 'scep.crl'), seen.crls[0]);
    const crl = spawnSync('openssl', ['crl', '-in', 'scep.crl', '-CAfile', 'rsa-ca.pem', '-noout', '-text'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect([crl.status, crl.stderr.trim()]).toEqual([0, 'verify OK']);
    const checked = crl.stdout;
    const revoked = execFileSync('openssl', ['x509', '-noout', '-serial'], { input: issuedPem })
      .toString()
      .trim()
      .replace(/^serial=0*/, '');
    expect(checked).toMatch(/Issuer: CN ?= ?rsa devices/);
    expect(checked).toMatch(new RegExp(`Serial Number: 0*${revoked}\\n`));
    const deviceSubject = certificateIdentity(device.certDer).issuer; // self-signed: its issuer is itself
    expect(await post(getCrl(deviceSubject), device)).toMatchObject({ status: '2', failInfo: '4' });
  });
});

describe('approval (scep.labels.held.approval)', () => {
  const operator = { type: 'operator', name: 'root', protocol: 'cli' };
  const services = () => ({
    store: f.store,
    keyBackends: { default: f.keyBackend },
    profiles: resolveProfiles(),
    defaultProfile: 'webserver',
  });
  const CERT_POLL = 20;
  const pkcsReq = (device: Device, cn: string, challenge: string, transactionId: string) =>
    buildRequest({
      signer: device,
      content: envelope(dir, csrOf(dir, device.key, cn, challenge), raPem),
      messageType: PKCS_REQ,
      transactionId,
    });
  /** strongSwan's CertPoll: IssuerAndSubject (issuer: the RA's subject, subject: the one asked for), same transaction and key. */
  const certPoll = (device: Device, transactionId: string) => {
    const subject = certificateIdentity(device.certDer).issuer; // self-signed: its issuer is its subject
    return buildRequest({
      signer: device,
      content: envelope(dir, tlv(0x30, subject, subject), raPem),
      messageType: CERT_POLL,
      transactionId,
    });
  };
  const requestsOf = async (label: string) =>
    (await f.db.knex(TABLES.enrolmentRequests).where({ protocol: 'scep', label })) as { id: number; status: string }[];

  test('PKCSReq → PENDING; CertPoll and the re-sent PKCSReq → PENDING, one request, no certificate; approved → SUCCESS, once', async () => {
    const device = makeDevice(dir, 'held1');
    const message = pkcsReq(device, 'held1.example.org', 'held-secret', 'HELD-1');
    const before = await certificateCount();
    expect(await post(message, device, '/held')).toMatchObject({ status: '3', failInfo: null, transactionId: 'HELD-1', certificates: [] });
    expect(await post(certPoll(device, 'HELD-1'), device, '/held')).toMatchObject({ status: '3', certificates: [] });
    expect(await post(message, device, '/held')).toMatchObject({ status: '3', certificates: [] }); // micromdm's re-sent PKCSReq
    const kept = await requestsOf('held');
    expect(kept).toHaveLength(1);
    expect(await certificateCount()).toBe(before);

    const { certificate } = await approveEnrolmentRequest(services(), kept[0].id, operator);
    const polled = await post(certPoll(device, 'HELD-1'), device, '/held');
    expect(polled).toMatchObject({ status: '0', transactionId: 'HELD-1' });
    expect(polled.certificates).toHaveLength(1);
    const serialOf = (pem: string) =>
      execFileSync('openssl', ['x509', '-noout', '-serial'], { input: pem })
        .toString()
        .trim()
        .replace(/^serial=0*/, '');
    expect(serialOf(polled.certificates[0])).toBe(certificate.serial.replace(/^0+/, ''));
    const resent = await post(message, device, '/held');
    expect(serialOf(resent.certificates[0])).toBe(certificate.serial.replace(/^0+/, ''));
    expect(await certificateCount()).toBe(before + 1);
    await expect(approveEnrolmentRequest(services(), kept[0].id, operator)).rejects.toThrow(/was approved already/);
    expect(await certificateCount()).toBe(before + 1);
  });

  test('a one-time challenge is used up when the request waits; refused → FAILURE badRequest with the reason, nothing issued', async () => {
    const { id: challengeId, secret } = await createEnrolmentChallenge(f.store, {
      protocol: 'scep',
      label: 'held',
      subject: null,
      san: null,
      validityMs: 3_600_000,
    });
    const device = makeDevice(dir, 'held2');
    const message = pkcsReq(device, 'held2.example.org', secret, 'HELD-2');
    const before = await certificateCount();
    expect((await post(message, device, '/held')).status).toBe('3');
    expect((await f.db.knex('ca_api_enrolment_challenges').where({ id: challengeId }).first()).used).not.toBeNull();
    // Used up, yet the same request is still a poll of its own, not a second use.
    expect((await post(message, device, '/held')).status).toBe('3');
    // Another device with that secret: the challenge is spent.
    const other = makeDevice(dir, 'held2b');
    expect(await post(pkcsReq(other, 'held2b.example.org', secret, 'HELD-2B'), other, '/held')).toMatchObject({
      status: '2',
      failInfo: '2',
    });
    const [kept] = (await requestsOf('held')).filter((r) => r.status === 'pending');
    await refuseEnrolmentRequest(f.store, kept.id, operator, 'Not one of ours.');
    expect(await post(certPoll(device, 'HELD-2'), device, '/held')).toMatchObject({
      status: '2',
      failInfo: '2',
      failInfoText: 'Not one of ours.',
    });
    expect(await post(message, device, '/held')).toMatchObject({ status: '2', failInfo: '2', failInfoText: 'Not one of ours.' });
    expect(await certificateCount()).toBe(before);
  });

  test('CertPoll of another transaction or by another key: badCertId; a wrong challenge waits for nothing', async () => {
    const device = makeDevice(dir, 'held3');
    const stranger = makeDevice(dir, 'held3s');
    expect((await post(pkcsReq(device, 'held3.example.org', 'held-secret', 'HELD-3'), device, '/held')).status).toBe('3');
    expect(await post(certPoll(device, 'HELD-OTHER'), device, '/held')).toMatchObject({ status: '2', failInfo: '4' });
    expect(await post(certPoll(stranger, 'HELD-3'), stranger, '/held')).toMatchObject({ status: '2', failInfo: '4' });
    const count = (await requestsOf('held')).length;
    expect(await post(pkcsReq(stranger, 'held3s.example.org', 'wrong', 'HELD-4'), stranger, '/held')).toMatchObject({
      status: '2',
      failInfo: '2',
    });
    expect((await requestsOf('held')).length).toBe(count);
  });
});
