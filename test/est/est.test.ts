/**
 * `createCaApiRouter({ est })` (docs/guides/est.md): the EST endpoints of RFC 7030 through the router, on
 * PGlite, with openssl as the oracle of what they hand out: cacerts, simpleenroll with HTTP Basic,
 * csrattrs, serverkeygen (a label offering it), and every refusal in plain text with nothing stored.
 */
import { execFile, execFileSync } from 'child_process';
import { promisify } from 'util';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import request from 'supertest';
import { TABLES } from '../../adapters/store/knex/tables';
import { buildApp } from '../helpers/http';
import { API, opensslCsr, setupApi, type ApiFixture } from '../api/fixture';
import { cliRunner } from '../cli/helpers';
import { approveEnrolmentRequest, refuseEnrolmentRequest } from '../../lib/enrolment/approval';
import { resolveProfiles } from '../../lib/ca/profiles';
import { CHALLENGE_WEBHOOK_SECRET, challengeWebhookServer, type ChallengeWebhookServer } from '../helpers/challenge-webhook';
import { csrOf } from '../helpers/scep-request';
import { readCsr } from '../../lib/enrolment/enrol';
import { createEnrolmentChallenge } from '../../lib/enrolment/challenges';
import { namePolicyRefusal } from '../../lib/enrolment/name-policy';
import { selfSignedP256 } from '../helpers/openssl-args';

let f: ApiFixture;
let built: ReturnType<typeof buildApp>;
let app: ReturnType<typeof buildApp>['app'];
let dir: string;
const EST = '/.well-known/est';
/** The name policy of the label `policed` (docs/guides/est.md), written as a host would: aliases, a trailing dot, upper case. */
const POLICY = { allow: ['Devices.Example.ORG.', '10.0.0.0/8'], deny: ['bad.devices.example.org'], subjectAttributes: ['CN', 'O'] };

/** The host's challenge webhook of the label `hooked` (docs/guides/est.md): `yes` is the one challenge it allows. */
let hook: ChallengeWebhookServer;

beforeAll(async () => {
  hook = await challengeWebhookServer((asked) => ({ status: 200, body: JSON.stringify({ allow: asked.data.challenge === 'yes' }) }));
  f = await setupApi();
  const other = await f.makeCa({ name: 'devices', apiEnabled: true }); // in the REST inventory too
  built = buildApp({
    enableRestApi: true,
    store: f.store,
    keyBackends: { default: f.keyBackend },
    est: {
      enabled: true,
      ca: f.ca.serial,
      retryAfterSeconds: 5,
      labels: {
        devices: { ca: other.name, profile: 'client', serverKeygen: true },
        week: { ca: other.name, validityDays: 7 },
        held: { ca: f.ca.serial, approval: true },
        heldWeek: {
          ca: f.ca.serial,
          approval: true,
          validityDays: 7,
          names: { allow: ['week.example.org'], deny: [], subjectAttributes: null },
        },
        limited: { ca: f.ca.serial, requestsPerMinute: 2 },
        policed: { ca: f.ca.serial, serverKeygen: true, names: POLICY },
        hooked: { ca: f.ca.serial, challengeWebhook: { url: hook.url, secret: CHALLENGE_WEBHOOK_SECRET } },
        heldHooked: { ca: f.ca.serial, approval: true, challengeWebhook: { url: hook.url, secret: CHALLENGE_WEBHOOK_SECRET } },
      },
    },
  });
  app = built.app;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'est-'));
});
afterAll(async () => {
  await built?.close();
  await f?.close();
  await hook?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The certificates of a base64 certs-only PKCS#7, as openssl prints them (PEM, in order). */
function certsOf(base64: string): string[] {
  const pem = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-print_certs'], { input: Buffer.from(base64, 'base64') }).toString();
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g) ?? [];
}

const text = (pem: string, ...args: string[]) => execFileSync('openssl', ['x509', '-noout', ...args], { input: pem }).toString();
const certificateCount = async () => Number((await f.db.knex(TABLES.certificates).count({ n: '*' }))[0].n);

/** A CSR for the subject `subj` (openssl -subj) and the subjectAltName `san`, its key in `keyFile`, as DER. */
function csrWith(subj: string, san: string, keyFile: string): Buffer {
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', path.join(dir, keyFile)];
  return execFileSync('openssl', ['req', '-new', ...newKey, '-subj', subj, '-addext', `subjectAltName=${san}`, '-outform', 'DER']);
}

/** A CSR for `cn` with a SAN, as DER (its key in `${cn}.key`). */
function csrDer(cn: string, san = `DNS:${cn}`): Buffer {
  return csrWith(`/CN=${cn}`, san, `${cn}.key`);
}

const enroll = (body: string | Buffer, user = 'alice', label = '') =>
  request(app)
    .post(`${EST}${label ? `/${label}` : ''}/simpleenroll`)
    .set(f.auth(user))
    .set('Content-Type', 'application/pkcs10')
    .send(body);

describe('cacerts', () => {
  test('the CA and its chain up to the root, base64 on one line, without authentication', async () => {
    const res = await request(app).get(`${EST}/cacerts`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pkcs7-mime');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
    expect(res.text).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    const certs = certsOf(res.text);
    expect(certs.map((c) => text(c, '-subject').trim())).toEqual(['subject=CN = Test Intermediate', 'subject=CN = Test Root']);
  });

  test('a label serves its own CA; an unknown label is a 404 in plain text', async () => {
    const res = await request(app).get(`${EST}/devices/cacerts`);
    expect(res.status).toBe(200);
    expect(text(certsOf(res.text)[0], '-subject')).toContain('CN = devices');
    const unknown = await request(app).get(`${EST}/nobody/cacerts`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(unknown.text).toBe('No EST endpoint is labelled "nobody".\n');
  });

  test('a long label is quoted as a short escaped prefix, not echoed whole', async () => {
    const res = await request(app).get(`${EST}/${'a'.repeat(1000)}/cacerts`);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe(`No EST endpoint is labelled "${'a'.repeat(40)}"... (1000 characters).\n`);
  });

  test.each([
    ['a path the table lacks', `${EST}/devices/cacerts/extra/${'x'.repeat(2000)}`],
    ['a label with markup', `${EST}/%3Cscript%3Ealert(1)%3C%2Fscript%3E/cacerts`],
    ['the root of the mount', `${EST}/`],
  ])('%s: a plain-text 404 that does not echo the path', async (_what, url) => {
    const res = await request(app).get(url);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).not.toMatch(/xxxx|script|<|Cannot GET/);
    expect(res.text.length).toBeLessThan(200);
  });
});

describe('simpleenroll', () => {
  test('a CSR (base64 wrapped with CRLF) → the certificate alone; openssl verifies it up to the root; in the REST inventory', async () => {
    const wrapped = csrDer('dev1.example.org').toString('base64').replace(/.{64}/g, '$&\r\n');
    const res = await enroll(`${wrapped}\r\n`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pkcs7-mime; smime-type=certs-only');
    expect(res.headers['content-transfer-encoding']).toBe('base64');
    const certs = certsOf(res.text);
    expect(certs).toHaveLength(1);
    expect(text(certs[0], '-subject')).toBe('subject=CN = dev1.example.org\n');
    expect(text(certs[0], '-ext', 'subjectAltName')).toContain('DNS:dev1.example.org');
    const chain = certsOf((await request(app).get(`${EST}/cacerts`)).text);
    fs.writeFileSync(path.join(dir, 'root.pem'), chain[1]);
    fs.writeFileSync(path.join(dir, 'chain.pem'), chain[0]);
    fs.writeFileSync(path.join(dir, 'dev1.pem'), certs[0]);
    const verified = execFileSync('openssl', ['verify', '-CAfile', 'root.pem', '-untrusted', 'chain.pem', 'dev1.pem'], {
      cwd: dir,
    }).toString();
    expect(verified).toBe('dev1.pem: OK\n');
    const serial = text(certs[0], '-serial').trim().replace('serial=', '');
    const inventory = await request(f.app).get(`${API}/ca/${f.ca.serial}/certs/${serial}/`).set(f.auth('alice'));
    expect(inventory.status).toBe(200);
    const event = await f.db.knex(TABLES.events).where({ type: 'certificate.issued' }).orderBy('id', 'desc').first();
    expect(JSON.parse(JSON.stringify(event.actor))).toMatchObject({ type: 'api_user', name: 'alice', protocol: 'est' });
  });

  test('a label enrols with its CA and profile (client: the client-auth EKU)', async () => {
    const res = await enroll(csrDer('dev2.example.org').toString('base64'), 'alice', 'devices');
    expect(res.status).toBe(200);
    const cert = certsOf(res.text)[0];
    expect(text(cert, '-issuer')).toContain('CN = devices');
    expect(text(cert, '-ext', 'extendedKeyUsage')).toContain('TLS Web Client Authentication');
  });

  test.each([
    ['no credentials', {}, 401],
    ['a wrong password', { Authorization: `Basic ${Buffer.from('alice:wrong').toString('base64')}` }, 401],
  ])('%s → 401 with WWW-Authenticate and an empty body, nothing stored', async (_name, headers, status) => {
    const before = await certificateCount();
    const res = await request(app).post(`${EST}/simpleenroll`).set(headers).send(csrDer('x.example.org').toString('base64'));
    expect(res.status).toBe(status);
    expect(res.headers['www-authenticate']).toBe('Basic realm="est"');
    // Empty (docs/guides/est.md): a client that asks without credentials first and closes the 401 unread
    // must find nothing left to read.
    expect(res.headers['content-length']).toBe('0');
    expect(res.text).toBe('');
    expect(await certificateCount()).toBe(before);
  });

  test.each([
    [
      'a user without sign_certificate',
      () => enroll(csrDer('y.example.org').toString('base64'), 'no_sign_certificate'),
      403,
      /may not sign certificates/,
    ],
    ['a body that is not base64', () => enroll('this is not base64!'), 400, /^The certificate request is not base64/],
    ['an empty body', () => enroll(''), 400, /^The request has no certificate request/],
    [
      'a CSR with a broken signature',
      () => {
        const der = csrDer('z.example.org');
        der[der.length - 3] ^= 0xff;
        return enroll(der.toString('base64'));
      },
      400,
      /^The certificate request cannot be signed: /,
    ],
    [
      'a certificate instead of a CSR',
      () => enroll(Buffer.from(f.ca.der).toString('base64')),
      400,
      /^The certificate request cannot be signed: /,
    ],
    ['a body over the limit', () => enroll('A'.repeat(64 * 1024 + 4)), 413, /larger than 65536 bytes/],
  ])('%s: refused in plain text, nothing stored', async (_name, send, status, reason) => {
    const before = await certificateCount();
    const res = await send();
    expect([res.status, res.headers['content-type']]).toEqual([status, 'text/plain; charset=utf-8']);
    expect(res.text).toMatch(reason);
    expect(await certificateCount()).toBe(before);
  });

  test('openssl req made with opensslCsr (RSA) enrols too', async () => {
    const { csr } = opensslCsr('RSA');
    const der = Buffer.from(csr.replace(/-----[A-Z ]+-----/g, '').replace(/\s/g, ''), 'base64');
    const res = await enroll(der.toString('base64'));
    expect(res.status).toBe(200);
  });
});

describe('name policy (est.labels.policed.names)', () => {
  /** A CSR for the subject `subj` (openssl -subj) and the subjectAltName `san`, as base64 DER. */
  const csrFor = (subj: string, san: string) => csrWith(subj, san, 'policed.key').toString('base64');

  test('names the policy allows: issued with exactly those names', async () => {
    const res = await enroll(csrFor('/CN=a.devices.example.org/O=Example', 'DNS:a.devices.example.org,IP:10.1.2.3'), 'alice', 'policed');
    expect(res.status).toBe(200);
    const cert = certsOf(res.text)[0];
    expect(text(cert, '-subject')).toBe('subject=CN = a.devices.example.org, O = Example\n');
    expect(text(cert, '-ext', 'subjectAltName').split('\n')[1].trim()).toBe('DNS:a.devices.example.org, IP Address:10.1.2.3');
  });

  test('a commonName that is not a domain name (a serial number) is a label, not a name: issued', async () => {
    const res = await enroll(csrFor('/CN=SN-4711', 'DNS:b.devices.example.org'), 'alice', 'policed');
    expect(res.status).toBe(200);
  });

  test.each([
    [
      'a DNS name outside the allow list',
      '/CN=c.devices.example.org',
      'DNS:c.devices.example.org,DNS:evil.example.com',
      /DNS:evil\.example\.com is not among the allowed names/,
    ],
    [
      'a denied name',
      '/CN=bad.devices.example.org',
      'DNS:bad.devices.example.org',
      /the commonName bad\.devices\.example\.org is denied; DNS:bad\.devices\.example\.org is denied/,
    ],
    [
      'a commonName outside, SANs inside',
      '/CN=www.example.com',
      'DNS:d.devices.example.org',
      /the commonName www\.example\.com is not among the allowed names/,
    ],
    ['an IP address outside', '/CN=e.devices.example.org', 'IP:192.168.1.1', /IP:192\.168\.1\.1 is not among the allowed names/],
    [
      'an email subjectAltName',
      '/CN=f.devices.example.org',
      'email:f@devices.example.org',
      /the subjectAltName email:f@devices\.example\.org is not allowed \(only DNS names and IP addresses are\)/,
    ],
    [
      'a subject attribute not allowed',
      '/CN=g.devices.example.org/OU=Ops',
      'DNS:g.devices.example.org',
      /the subject attribute organizationalUnitName is not allowed \(allowed: commonName, organizationName\)/,
    ],
  ])('%s: 403 in plain text naming it, nothing stored', async (_what, subj, san, reason) => {
    const before = await certificateCount();
    const res = await enroll(csrFor(subj, san), 'alice', 'policed');
    expect([res.status, res.headers['content-type']]).toEqual([403, 'text/plain; charset=utf-8']);
    expect(res.text).toMatch(/^The endpoint's name policy refuses the request: /);
    expect(res.text).toMatch(reason);
    expect(await certificateCount()).toBe(before);
  });

  test('curl posting a CSR outside it gets the 403 and its reason; nothing stored', async () => {
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      fs.writeFileSync(path.join(dir, 'outside.b64'), csrFor('/CN=outside.example.com', 'DNS:outside.example.com'));
      const { port } = server.address() as AddressInfo;
      const before = await certificateCount();
      // Asynchronously: the server answering curl runs in this process.
      const { stdout: out } = await promisify(execFile)('curl', [
        ...['-sS', '-H', `Authorization: ${f.auth('alice').Authorization}`, '-H', 'Content-Type: application/pkcs10'],
        ...['--data-binary', `@${path.join(dir, 'outside.b64')}`, '-w', '\n%{http_code}'],
        `http://127.0.0.1:${port}${EST}/policed/simpleenroll`,
      ]);
      expect(out).toBe(
        "The endpoint's name policy refuses the request: the commonName outside.example.com is not among the allowed names; " +
          'DNS:outside.example.com is not among the allowed names.\n\n403',
      );
      expect(await certificateCount()).toBe(before);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('serverkeygen is held to it too', async () => {
    const before = await certificateCount();
    const res = await request(app)
      .post(`${EST}/policed/serverkeygen`)
      .set(f.auth('alice'))
      .set('Content-Type', 'application/pkcs10')
      .send(csrFor('/CN=h.example.com', 'DNS:h.example.com'));
    expect(res.status).toBe(403);
    expect(res.text).toMatch(/the commonName h\.example\.com is not among the allowed names/);
    expect(await certificateCount()).toBe(before);
  });

  test('attribute types written as aliases or OIDs (as an endpoint kept in the database may hold them) read alike', async () => {
    const csr = await readCsr(Buffer.from(csrFor('/CN=i.devices.example.org/O=Example/OU=Ops', 'DNS:i.devices.example.org'), 'base64'));
    const policy = (subjectAttributes: string[]) => ({ allow: [], deny: [], subjectAttributes });
    expect(namePolicyRefusal(policy(['CN', 'O', 'OU']), csr)).toBeNull();
    expect(namePolicyRefusal(policy(['commonName', '2.5.4.10', 'organizationalUnitName']), csr)).toBeNull();
    expect(namePolicyRefusal(policy(['CN', 'O']), csr)).toBe(
      'the subject attribute organizationalUnitName is not allowed (allowed: CN, O)',
    );
  });

  test('the endpoint keeps the entries canonical, as the ACME policy does', () => {
    const endpoint = built.router.options.est.endpoints.get('policed');
    expect(endpoint?.names).toEqual({
      allow: ['devices.example.org', '10.0.0.0/8'],
      deny: ['bad.devices.example.org'],
      subjectAttributes: ['commonName', 'organizationName'],
    });
    expect(built.router.options.est.endpoints.get('devices')?.names).toBeNull();
  });
});

describe('challenge webhook (est.labels.hooked.challengeWebhook)', () => {
  /** A CSR for `cn` carrying the challenge password `challenge` (none when undefined), as base64 DER. */
  const csrWithChallenge = (cn: string, challenge?: string) => {
    const key = path.join(dir, `${cn}.key`);
    execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key], { stdio: 'pipe' });
    return csrOf(dir, key, cn, challenge).toString('base64');
  };

  test('a challenge password the webhook allows: issued; it was asked, signed, about this request', async () => {
    const asked = hook.asked.length;
    const res = await enroll(csrWithChallenge('hooked.example.org', 'yes'), 'alice', 'hooked');
    expect(res.status).toBe(200);
    expect(hook.unsigned).toBe(0);
    expect(hook.asked.slice(asked).map((a) => a.data)).toEqual([
      expect.objectContaining({ protocol: 'est', label: 'hooked', ca_serial: f.ca.serial, challenge: 'yes', transaction_id: null }),
    ]);
  });

  test.each([
    ['one the webhook refuses', 'no', 1],
    ['none (the webhook is not asked)', undefined, 0],
  ])('%s: 403 in plain text, nothing stored', async (_what, challenge, askedMore) => {
    const before = await certificateCount();
    const asked = hook.asked.length;
    const res = await enroll(csrWithChallenge('hooked-no.example.org', challenge), 'alice', 'hooked');
    expect([res.status, res.text]).toEqual([403, 'The challenge password is missing or wrong.\n']);
    expect(hook.asked.length - asked).toBe(askedMore);
    expect(await certificateCount()).toBe(before);
  });
});

/** The raw body, whatever its type (superagent would hand multipart/mixed to a form parser). */
const rawBody = (res: NodeJS.ReadableStream, done: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

const keygen = (body: string | Buffer, user = 'alice', label = 'devices') =>
  request(app)
    .post(`${EST}${label ? `/${label}` : ''}/serverkeygen`)
    .set(f.auth(user))
    .set('Content-Type', 'application/pkcs10')
    .buffer(true)
    .parse(rawBody as unknown as Parameters<request.Test['parse']>[0])
    .send(body);

/** A PKCS#10 for CN=`cn` signed by `key` (P-256), with `attributes` (DER Attribute values) in [0]: what openssl req cannot add. */
function handMadeCsr(cn: string, attributes: Buffer[]): Buffer {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const t = (tag: number, ...content: Buffer[]) => {
    const body = Buffer.concat(content);
    const len = body.length < 0x80 ? Buffer.from([body.length]) : Buffer.from([0x81, body.length]);
    return Buffer.concat([Buffer.from([tag]), len, body]);
  };
  const name = t(0x30, t(0x31, t(0x30, Buffer.from('0603550403', 'hex'), t(0x0c, Buffer.from(cn)))));
  const info = t(0x30, Buffer.from('020100', 'hex'), name, publicKey.export({ type: 'spki', format: 'der' }), t(0xa0, ...attributes));
  const ecdsaWithSha256 = Buffer.from('300a06082a8648ce3d040302', 'hex');
  return t(0x30, info, ecdsaWithSha256, t(0x03, Buffer.from([0]), crypto.sign('sha256', info, privateKey)));
}

/** The parts of a multipart/mixed answer: each part's headers (lower-case names) and body. */
function partsOf(body: Buffer, contentType: string): { headers: Record<string, string>; body: string }[] {
  const boundary = /boundary=([^;]+)/.exec(contentType)![1];
  const text = body.toString('latin1');
  expect(text.endsWith(`\r\n--${boundary}--\r\n`)).toBe(true);
  return text
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => {
      const [head, content] = part.replace(/^\r\n/, '').split('\r\n\r\n');
      const headers = Object.fromEntries(
        head.split('\r\n').map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      return { headers, body: content.replace(/\r\n$/, '') };
    });
}

const openssl = (args: string[], input?: Buffer | string) => execFileSync('openssl', args, { input, cwd: dir }).toString();

describe('serverkeygen (est.labels.devices.serverKeygen)', () => {
  test.each([
    ['EC P-256', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], /ASN1 OID: prime256v1/],
    ['RSA-2048', ['-newkey', 'rsa:2048'], /Private-Key: \(2048 bit, 2 primes\)/],
    ['Ed25519', ['-newkey', 'ed25519'], /ED25519 Private-Key/],
  ])('a %s CSR → a new key of that kind and its certificate; the key is in no event', async (_kind, newkey, keyText) => {
    const csrKey = path.join(dir, 'kg-csr.key');
    const csr = execFileSync('openssl', [
      'req',
      '-new',
      ...newkey,
      '-nodes',
      '-keyout',
      csrKey,
      '-subj',
      '/CN=kg.example.org',
      '-addext',
      'subjectAltName=DNS:kg.example.org',
      '-outform',
      'DER',
    ]);
    const lastEvent = Number((await f.db.knex(TABLES.events).max({ id: 'id' }))[0].id);
    const res = await keygen(csr.toString('base64'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^multipart\/mixed; boundary=[A-Za-z0-9'()+_,./:=?-]+$/);
    expect(res.headers['cache-control']).toBe('no-store');
    const [keyPart, certPart, ...more] = partsOf(res.body as Buffer, res.headers['content-type']);
    expect(more).toEqual([]);
    expect(keyPart.headers['content-type']).toBe('application/pkcs8');
    expect(certPart.headers['content-type']).toBe('application/pkcs7-mime; smime-type=certs-only');
    const keyPem = openssl(['pkey', '-inform', 'DER'], Buffer.from(keyPart.body, 'base64'));
    expect(openssl(['pkey', '-noout', '-text'], keyPem)).toMatch(keyText);
    const certs = certsOf(certPart.body);
    expect(certs).toHaveLength(1);
    expect(text(certs[0], '-subject')).toBe('subject=CN = kg.example.org\n');
    expect(text(certs[0], '-ext', 'subjectAltName')).toContain('DNS:kg.example.org');
    expect(text(certs[0], '-issuer')).toContain('CN = devices');
    const certKey = text(certs[0], '-pubkey');
    expect(certKey).toBe(openssl(['pkey', '-pubout'], keyPem));
    expect(certKey).not.toBe(openssl(['pkey', '-pubout', '-in', csrKey]));
    const events = JSON.stringify(await f.db.knex(TABLES.events).where('id', '>', lastEvent));
    expect(events).toContain('certificate.issued');
    expect(events).not.toContain('PRIVATE KEY');
    expect(events).not.toContain(keyPart.body.slice(-40));
    const serial = text(certs[0], '-serial').trim().replace('serial=', '');
    const row = await f.db
      .knex(TABLES.certificates)
      .where({ serial: serial.replace(/^0+/, '') })
      .first();
    // Stored as any certificate is (the REST inventory reads these rows), with no key beside it.
    expect(row.cn).toBe('kg.example.org');
    expect(JSON.stringify(row)).not.toContain('PRIVATE KEY');
  });

  test.each([
    [
      'not offered at the URLs without a label',
      () => keygen(csrDer('k1.example.org').toString('base64'), 'alice', ''),
      501,
      /^This EST server does not offer serverkeygen\.\n$/,
    ],
    ['no credentials', () => request(app).post(`${EST}/devices/serverkeygen`).send(csrDer('k2.example.org').toString('base64')), 401, /^$/],
    [
      'a user without sign_certificate',
      () => keygen(csrDer('k3.example.org').toString('base64'), 'no_sign_certificate'),
      403,
      /may not sign certificates/,
    ],
    [
      'plain HTTP relayed by a proxy',
      () => keygen(csrDer('k4.example.org').toString('base64')).set('X-Forwarded-For', '192.0.2.1'),
      403,
      /^serverkeygen sends a private key: use HTTPS/,
    ],
    [
      'a CSR with a broken signature',
      () => {
        const der = csrDer('k5.example.org');
        der[der.length - 3] ^= 0xff;
        return keygen(der.toString('base64'));
      },
      400,
      /^The certificate request cannot be signed: /,
    ],
    ['a body that is not base64', () => keygen('not base64!'), 400, /^The certificate request is not base64/],
    [
      'a request for the key encrypted (DecryptKeyIdentifier)',
      () =>
        keygen(handMadeCsr('k6.example.org', [Buffer.from('3015060b2a864886f70d010910022531060404aabbccdd', 'hex')]).toString('base64')),
      400,
      /^This EST server does not encrypt server-generated keys/,
    ],
    [
      'a request for the key encrypted (AsymmetricDecryptKeyIdentifier)',
      () =>
        keygen(handMadeCsr('k7.example.org', [Buffer.from('3015060b2a864886f70d010910023631060404aabbccdd', 'hex')]).toString('base64')),
      400,
      /^This EST server does not encrypt server-generated keys/,
    ],
  ])('%s: refused in plain text, nothing stored', async (_name, send, status, reason) => {
    const before = await certificateCount();
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(Buffer.isBuffer(res.body) ? res.body.toString() : res.text).toMatch(reason);
    expect(await certificateCount()).toBe(before);
  });

  test('a hand-made CSR without those attributes is issued (the refusal above is theirs)', async () => {
    expect((await keygen(handMadeCsr('k8.example.org', []).toString('base64'))).status).toBe(200);
  });

  test('est.serverKeygen must be true or false', () => {
    expect(() => buildApp({ store: f.store, est: { enabled: true, serverKeygen: 'yes' as never } })).toThrow(
      /option `est.serverKeygen` must be true or false/,
    );
    expect(() => buildApp({ store: f.store, est: { enabled: true, labels: { x: { ca: 'a', serverKeygen: 1 as never } } } })).toThrow(
      /option `est.labels.x.serverKeygen` must be true or false/,
    );
  });
});

describe('the other operations', () => {
  test('csrattrs: 204 where no challenge is asked; where one is (a webhook: options, approval, stored), challengePassword', async () => {
    expect((await request(app).get(`${EST}/csrattrs`)).status).toBe(204);
    expect((await request(app).get(`${EST}/devices/csrattrs`)).status).toBe(204);
    expect((await request(app).get(`${EST}/nowhere/csrattrs`)).status).toBe(404);
    const caAdmin = cliRunner(f.store);
    expect((await caAdmin(['create_enrolment_endpoint', 'est', 'attrs-hooked', '--ca', 'devices', '--challenge', 'webhook'])).code).toBe(0);
    expect((await caAdmin(['create_enrolment_endpoint', 'est', 'attrs-plain', '--ca', 'devices'])).code).toBe(0);
    try {
      expect((await request(app).get(`${EST}/attrs-plain/csrattrs`)).status).toBe(204);
      // attrs-hooked: est.challengeWebhook is not set here, so every challenge is refused; one is still asked for.
      for (const label of ['hooked', 'heldHooked', 'attrs-hooked']) {
        const res = await request(app).get(`${EST}/${label}/csrattrs`);
        expect([res.status, res.headers['content-type'], res.headers['content-transfer-encoding']]).toEqual([
          200,
          'application/csrattrs',
          'base64',
        ]);
        const parsed = execFileSync('openssl', ['asn1parse', '-inform', 'DER'], { input: Buffer.from(res.text, 'base64') }).toString();
        expect(
          parsed.split('\n').map((l) =>
            l
              .replace(/^\s*\d+:d=(\d).*?(cons|prim): */, '$1 $2 ')
              .replace(/\s+/g, ' ')
              .trim(),
          ),
        ).toEqual(['0 cons SEQUENCE', '1 prim OBJECT :challengePassword', '']);
      }
    } finally {
      await caAdmin(['delete_enrolment_endpoint', 'est', 'attrs-hooked']);
      await caAdmin(['delete_enrolment_endpoint', 'est', 'attrs-plain']);
    }
  });

  test('simplereenroll without a TLS client certificate: 403 with the reason, nothing stored', async () => {
    const before = await certificateCount();
    const res = await request(app).post(`${EST}/simplereenroll`).send(csrDer('r.example.org').toString('base64'));
    expect(res.status).toBe(403);
    expect(res.text).toBe('simplereenroll needs the certificate being renewed as the TLS client certificate (RFC 7030 §4.2.2).\n');
    expect(await certificateCount()).toBe(before);
  });

  test.each(['serverkeygen', 'fullcmc'])('%s (not offered): 501 with the reason', async (op) => {
    const res = await request(app).post(`${EST}/${op}`).set(f.auth('alice')).send('AAAA');
    expect(res.status).toBe(501);
    expect(res.text).toBe(`This EST server does not offer ${op}.\n`);
  });

  test('a wrong method is a 405; another path under /.well-known falls through to the host', async () => {
    expect((await request(app).get(`${EST}/simpleenroll`)).status).toBe(405);
    expect((await request(app).get('/.well-known/security.txt')).status).toBe(299); // the host's route
  });

  test('without est.enabled nothing is served there', async () => {
    const res = await request(f.app).get(`${EST}/cacerts`);
    expect([res.status, res.body]).toEqual([299, { host: true, path: `${EST}/cacerts` }]);
  });
});

describe('endpoints kept in the database (ca-admin create_enrolment_endpoint)', () => {
  test('a label made with ca-admin enrols with its CA and validity; disabled or deleted: 404; an option label beats it', async () => {
    const caAdmin = cliRunner(f.store);
    const ok = async (argv: string[]) => expect(await caAdmin(argv)).toMatchObject({ code: 0, stderr: '' });
    await ok(['create_enrolment_endpoint', 'est', 'fleet', '--ca', 'devices', '--profile', 'client', '--validity', '7']);
    const res = await enroll(csrDer('fleet1.example.org').toString('base64'), 'alice', 'fleet');
    expect(res.status).toBe(200);
    const [cert] = certsOf(res.text);
    expect(text(cert, '-issuer')).toContain('CN = devices');
    const notAfter = new Date(text(cert, '-enddate').trim().replace('notAfter=', '')).getTime();
    expect(Math.abs(notAfter - (Date.now() + 7 * 86_400_000))).toBeLessThan(3 * 60_000);
    expect(text(cert, '-ext', 'extendedKeyUsage')).toContain('TLS Web Client Authentication'); // the endpoint's profile
    expect(text(certsOf((await request(app).get(`${EST}/fleet/cacerts`)).text)[0], '-subject')).toContain('CN = devices');

    await ok(['edit_enrolment_endpoint', 'est', 'fleet', '--disable']);
    const before = await certificateCount();
    const disabled = await enroll(csrDer('fleet2.example.org').toString('base64'), 'alice', 'fleet');
    expect([disabled.status, disabled.text]).toEqual([404, 'No EST endpoint is labelled "fleet".\n']);
    expect(await certificateCount()).toBe(before);
    await ok(['delete_enrolment_endpoint', 'est', 'fleet']);
    expect((await request(app).get(`${EST}/fleet/cacerts`)).status).toBe(404);

    // est.labels.devices (CA devices) is the deployer's word: a stored endpoint of that label is not used, nor its validity.
    await ok(['create_enrolment_endpoint', 'est', 'devices', '--ca', f.ca.serial, '--validity', '7']);
    const option = await enroll(csrDer('option1.example.org').toString('base64'), 'alice', 'devices');
    expect(text(certsOf(option.text)[0], '-issuer')).toContain('CN = devices');
    const optionNotAfter = new Date(text(certsOf(option.text)[0], '-enddate').trim().replace('notAfter=', '')).getTime();
    expect(optionNotAfter - Date.now()).toBeGreaterThan(30 * 86_400_000);
    expect(text(certsOf((await request(app).get(`${EST}/devices/cacerts`)).text)[0], '-subject')).toContain('CN = devices');
    await ok(['delete_enrolment_endpoint', 'est', 'devices']);
  });

  test('--requests-per-minute: over the budget, 429 with Retry-After and nothing issued; cleared, no limit', async () => {
    const caAdmin = cliRunner(f.store);
    expect(await caAdmin(['create_enrolment_endpoint', 'est', 'db-budget', '--ca', 'devices', '--requests-per-minute', '1'])).toMatchObject(
      {
        code: 0,
        stderr: '',
      },
    );
    const before = await certificateCount();
    expect((await enroll(csrDer('budget1.example.org').toString('base64'), 'alice', 'db-budget')).status).toBe(200);
    const over = await enroll(csrDer('budget2.example.org').toString('base64'), 'alice', 'db-budget');
    expect([over.status, over.headers['retry-after']]).toEqual([429, expect.stringMatching(/^[1-9]\d*$/)]);
    expect(over.text).toBe(`Too many requests at this EST endpoint: it takes 1 a minute. Try again in ${over.headers['retry-after']} s.\n`);
    expect(await certificateCount()).toBe(before + 1);
    expect((await caAdmin(['edit_enrolment_endpoint', 'est', 'db-budget', '--no-requests-per-minute'])).code).toBe(0);
    expect((await enroll(csrDer('budget3.example.org').toString('base64'), 'alice', 'db-budget')).status).toBe(200);
  });

  test("--challenge webhook: the options' est.challengeWebhook decides; where the options have none, 403 and a warning", async () => {
    const caAdmin = cliRunner(f.store);
    expect(await caAdmin(['create_enrolment_endpoint', 'est', 'db-hooked', '--ca', 'devices', '--challenge', 'webhook'])).toMatchObject({
      code: 0,
    });
    const warnings: unknown[] = [];
    const logger = { info: () => undefined, warn: (...a: unknown[]) => void warnings.push(a), error: () => undefined, child: () => logger };
    const common = { enableRestApi: true, store: f.store, keyBackends: { default: f.keyBackend }, logger };
    const withHook = buildApp({ ...common, est: { enabled: true, challengeWebhook: { url: hook.url, secret: CHALLENGE_WEBHOOK_SECRET } } });
    const without = buildApp({ ...common, est: { enabled: true } });
    const post = (a: typeof app, cn: string, challenge?: string) => {
      const key = path.join(dir, `${cn}.key`);
      execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key], { stdio: 'pipe' });
      return request(a)
        .post(`${EST}/db-hooked/simpleenroll`)
        .set(f.auth('alice'))
        .set('Content-Type', 'application/pkcs10')
        .send(csrOf(dir, key, cn, challenge).toString('base64'));
    };
    try {
      const asked = hook.asked.length;
      const yes = await post(withHook.app, 'db-hooked1.example.org', 'yes');
      expect(yes.status).toBe(200);
      expect(text(certsOf(yes.text)[0], '-issuer')).toContain('CN = devices');
      expect(hook.asked.slice(asked).map((a) => [a.data.protocol, a.data.label, a.data.challenge])).toEqual([['est', 'db-hooked', 'yes']]);
      const before = await certificateCount();
      for (const challenge of ['no', undefined]) {
        const res = await post(withHook.app, 'db-hooked2.example.org', challenge);
        expect([res.status, res.text]).toEqual([403, 'The challenge password is missing or wrong.\n']);
      }
      expect(hook.asked.length).toBe(asked + 2); // `no` was asked; no challenge at all was not
      expect(warnings).toHaveLength(1);

      warnings.length = 0;
      const none = await post(without.app, 'db-hooked3.example.org', 'yes');
      expect([none.status, none.text]).toEqual([403, 'The challenge password is missing or wrong.\n']);
      expect(hook.asked.length).toBe(asked + 2);
      expect(await certificateCount()).toBe(before);
      expect(warnings).toEqual([
        [
          'express-ca-api: the challenge webhook refused an enrolment',
          {
            protocol: 'est',
            label: 'db-hooked',
            url: '',
            reason: "the endpoint uses the protocol's challenge webhook, but option `est.challengeWebhook` is not set",
          },
        ],
      ]);
    } finally {
      await withHook.close();
      await without.close();
    }
  });
});

describe('simplereenroll with the certificate a trusted proxy forwards (est.clientCertificateHeader)', () => {
  let proxied: ReturnType<typeof buildApp>;
  const HEADER = 'X-SSL-Client-Cert';
  beforeAll(() => {
    proxied = buildApp({
      enableRestApi: true,
      store: f.store,
      keyBackends: { default: f.keyBackend },
      est: { enabled: true, ca: f.ca.serial, clientCertificateHeader: HEADER },
    });
  });
  afterAll(async () => {
    await proxied?.close();
  });

  /** A certificate for `cn` issued at the proxied app with a password (its key in `${cn}.key`). */
  const issued = async (cn: string): Promise<string> => {
    const res = await request(proxied.app).post(`${EST}/simpleenroll`).set(f.auth('alice')).send(csrDer(cn).toString('base64'));
    expect(res.status).toBe(200);
    return certsOf(res.text)[0];
  };
  const reenroll = (cn: string, forwarded?: string | string[]) => {
    const sent = request(proxied.app).post(`${EST}/simplereenroll`).send(csrDer(cn).toString('base64'));
    // An array: the header on two lines, as a proxy that appends instead of replacing would send it.
    return forwarded === undefined ? sent : sent.set(HEADER, forwarded as string);
  };
  /** What nginx's `$ssl_client_escaped_cert` holds: the PEM, URL-encoded. */
  const escaped = (pem: string) => encodeURIComponent(pem);
  const derBase64 = (pem: string) => execFileSync('openssl', ['x509', '-outform', 'DER'], { input: pem }).toString('base64');
  const serialOf = (pem: string) => text(pem, '-serial').trim().replace('serial=', '');

  test('from a trusted proxy (trust proxy: loopback): URL-encoded PEM (nginx) and base64 DER renew; the requester is the certificate', async () => {
    proxied.app.set('trust proxy', 'loopback');
    const first = await issued('fwd1.example.org');
    const res = await reenroll('fwd1.example.org', escaped(first)).set('X-Forwarded-For', '198.51.100.7');
    expect([res.status, res.text.length > 0]).toEqual([200, true]);
    const renewed = certsOf(res.text)[0];
    expect(text(renewed, '-subject')).toBe('subject=CN = fwd1.example.org\n');
    expect(serialOf(renewed)).not.toBe(serialOf(first));
    expect(text(renewed, '-pubkey')).not.toBe(text(first, '-pubkey')); // re-key: csrDer made a new key
    const event = await f.db.knex(TABLES.events).where({ type: 'certificate.issued' }).orderBy('id', 'desc').first();
    expect(JSON.parse(JSON.stringify(event.actor))).toMatchObject({
      type: 'certificate',
      name: serialOf(first).replace(/^0+/, ''),
      protocol: 'est',
      address: '198.51.100.7',
    });
    const again = await reenroll('fwd1.example.org', derBase64(renewed));
    expect(again.status).toBe(200);
  });

  test.each([
    ['trust proxy off (the default)', false],
    ['a peer the host does not trust (trust proxy: 10.1.2.3)', '10.1.2.3'],
  ])('the same header from %s is ignored: 403, nothing issued', async (_what, trust) => {
    proxied.app.set('trust proxy', 'loopback');
    const pem = await issued('fwd2.example.org');
    proxied.app.set('trust proxy', trust);
    const before = await certificateCount();
    const res = await reenroll('fwd2.example.org', escaped(pem));
    expect(res.status).toBe(403);
    expect(res.text).toBe('simplereenroll needs the certificate being renewed as the TLS client certificate (RFC 7030 §4.2.2).\n');
    expect(await certificateCount()).toBe(before);
  });

  test.each([
    [
      'not a certificate',
      'hello',
      400,
      `The ${HEADER} header does not hold one certificate (URL-encoded PEM, or base64 of its DER) (docs/guides/est.md).\n`,
    ],
    ['broken URL encoding', '%E0%A4%A', 400, /^The X-SSL-Client-Cert header does not hold one certificate/],
    ['base64 of something else', Buffer.from('not a certificate at all').toString('base64'), 400, /does not hold one certificate/],
    ['sent twice', ['AAAA', 'BBBB'], 400, `The ${HEADER} header was sent more than once.\n`],
  ])('from a trusted proxy, a header %s: refused with the reason, nothing issued', async (_what, value, status, reason) => {
    proxied.app.set('trust proxy', 'loopback');
    const before = await certificateCount();
    const res = await reenroll('fwd3.example.org', value);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toMatch(reason);
    expect(await certificateCount()).toBe(before);
  });

  test('a forwarded certificate goes through the checks a TLS one does: not issued here, another subject: 403', async () => {
    proxied.app.set('trust proxy', 'loopback');
    const before = await certificateCount();
    const stranger = openssl(selfSignedP256({ keyOut: 'stranger.key', subject: '/CN=fwd4.example.org', days: 1 }));
    const foreign = await reenroll('fwd4.example.org', escaped(stranger));
    expect([foreign.status, foreign.text]).toEqual([
      403,
      'The forwarded client certificate was not issued by this certificate authority.\n',
    ]);
    const pem = await issued('fwd5.example.org');
    const other = await reenroll('fwd6.example.org', escaped(pem));
    expect([other.status, other.text]).toEqual([
      403,
      'The subject and subjectAltName of the request must be those of the certificate being renewed.\n',
    ]);
    expect(await certificateCount()).toBe(before + 1); // fwd5's own
  });

  test('at an endpoint kept in the database: its validity applies, its approval holds no renewal, its name policy refuses', async () => {
    proxied.app.set('trust proxy', 'loopback');
    const caAdmin = cliRunner(f.store);
    const made = await caAdmin([
      ...['create_enrolment_endpoint', 'est', 'db-renew', '--ca', f.ca.serial],
      ...['--approval', '--validity', '7', '--allow', 'renew.example.org'],
    ]);
    expect(made.code).toBe(0);
    const renew = (cn: string, pem: string) =>
      request(proxied.app).post(`${EST}/db-renew/simplereenroll`).set(HEADER, escaped(pem)).send(csrDer(cn).toString('base64'));
    try {
      const res = await renew('a.renew.example.org', await issued('a.renew.example.org'));
      expect(res.status).toBe(200);
      const notAfter = new Date(text(certsOf(res.text)[0], '-enddate').trim().replace('notAfter=', '')).getTime();
      expect(Math.abs(notAfter - (Date.now() + 7 * 86_400_000))).toBeLessThan(3 * 60_000);
      expect(await f.db.knex(TABLES.enrolmentRequests).where({ label: 'db-renew' })).toEqual([]); // nothing waits

      const outside = await issued('out.example.org');
      const before = await certificateCount();
      const refused = await renew('out.example.org', outside);
      expect([refused.status, refused.text]).toEqual([
        403,
        "The endpoint's name policy refuses the request: the commonName out.example.org is not among the allowed names; DNS:out.example.org is not among the allowed names.\n",
      ]);
      expect(await certificateCount()).toBe(before);
    } finally {
      await caAdmin(['delete_enrolment_endpoint', 'est', 'db-renew']);
      proxied.app.set('trust proxy', false);
    }
  });

  test('serverkeygen counts HTTPS as a trusted proxy reports it (X-Forwarded-Proto: https, req.secure); an untrusted peer saying so is refused', async () => {
    const viaProxy = () =>
      keygen(csrDer('k9.example.org').toString('base64')).set('X-Forwarded-For', '192.0.2.1').set('X-Forwarded-Proto', 'https');
    try {
      app.set('trust proxy', 'loopback');
      expect((await viaProxy()).status).toBe(200);
      app.set('trust proxy', '10.1.2.3');
      const untrusted = await viaProxy();
      expect(untrusted.status).toBe(403);
      expect(untrusted.body.toString()).toMatch(/^serverkeygen sends a private key: use HTTPS/);
      app.set('trust proxy', 'loopback');
      const plain = await keygen(csrDer('k9.example.org').toString('base64'))
        .set('X-Forwarded-For', '192.0.2.1')
        .set('X-Forwarded-Proto', 'http');
      expect(plain.status).toBe(403);
    } finally {
      app.set('trust proxy', false);
    }
  });
});

describe('requestsPerMinute (est.labels.limited)', () => {
  test('over the budget: 429 with Retry-After and nothing issued; cacerts and other labels are not counted', async () => {
    const before = await certificateCount();
    expect((await enroll(csrDer('limited1.example.org').toString('base64'), 'alice', 'limited')).status).toBe(200);
    expect((await enroll('not base64!', 'alice', 'limited')).status).toBe(400); // counted: refused before it is read
    expect((await request(app).get(`${EST}/limited/cacerts`)).status).toBe(200);
    const over = await enroll(csrDer('limited2.example.org').toString('base64'), 'alice', 'limited');
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(over.text).toBe(`Too many requests at this EST endpoint: it takes 2 a minute. Try again in ${over.headers['retry-after']} s.\n`);
    expect(await certificateCount()).toBe(before + 1);
    expect((await enroll(csrDer('unlimited1.example.org').toString('base64'), 'alice')).status).toBe(200);
  });
});

describe('options', () => {
  test('est.labels.{label}.validityDays: the certificates of that label are valid that many days', async () => {
    const res = await enroll(csrDer('week1.example.org').toString('base64'), 'alice', 'week');
    expect(res.status).toBe(200);
    const notAfter = new Date(text(certsOf(res.text)[0], '-enddate').trim().replace('notAfter=', '')).getTime();
    expect(Math.abs(notAfter - (Date.now() + 7 * 86_400_000))).toBeLessThan(3 * 60_000);
  });

  test.each([
    [{ enabled: true, validityDays: 0 }, /`est.validityDays` must be a whole number of days, at least 1/],
    [{ enabled: true, labels: { vpn: { ca: 'x', validityDays: 1.5 } } }, /`est.labels.vpn.validityDays` must be a whole number of days/],
    [{ enabled: true, labels: { cacerts: { ca: 'x' } } }, /cannot be a label: use letters, digits/],
    [{ enabled: true, labels: { 'a/b': { ca: 'x' } } }, /cannot be a label/],
    [{ enabled: true, labels: { vpn: {} } }, /`est.labels.vpn.ca` is required/],
    [{ enabled: true, bodyLimit: 0 }, /`est.bodyLimit` must be a positive whole number/],
    [{ enabled: 'yes' }, /`est.enabled` must be true or false/],
    [{ enable: true }, /unknown option `enable`/],
    [{ enabled: true, approval: 'yes' }, /`est.approval` must be true or false/],
    [{ enabled: true, labels: { x: { ca: 'a', approval: 1 } } }, /`est.labels.x.approval` must be true or false/],
    [{ enabled: true, labels: { x: { ca: 'a', approval: true, serverKeygen: true } } }, /`est.labels.x.approval` cannot be combined/],
    [{ enabled: true, retryAfterSeconds: 1.5 }, /`est.retryAfterSeconds` must be a whole number of seconds from 1 to 86400/],
    [{ enabled: true, retryAfterSeconds: 0 }, /`est.retryAfterSeconds` must be a whole number/],
    [{ enabled: true, requestsPerMinute: 0 }, /`est.requestsPerMinute` must be a whole number of requests a minute/],
    [{ enabled: true, labels: { x: { ca: 'a', requestsPerMinute: 2.5 } } }, /`est.labels.x.requestsPerMinute` must be a whole number/],
    [
      { enabled: true, clientCertificateHeader: 'X SSL Cert' },
      /`est.clientCertificateHeader` must be a header name such as 'X-SSL-Client-Cert'/,
    ],
    [{ enabled: true, clientCertificateHeader: true }, /`est.clientCertificateHeader` must be a header name/],
    [{ enabled: true, names: { allow: ['*.example.org'] } }, /option `est.names.allow` entry "\*\.example\.org": not a DNS suffix/],
    [
      { enabled: true, labels: { x: { ca: 'a', names: { deny: ['10.0.0.1/8'] } } } },
      /option `est.labels.x.names.deny` entry "10\.0\.0\.1\/8": not an IP/,
    ],
    [{ enabled: true, names: { allow: 'example.org' } }, /option `est.names.allow` must be an array of strings/],
    [
      { enabled: true, names: { subjectAttributes: ['CN', 'colour'] } },
      /option `est.names.subjectAttributes`: "colour" is not a subject attribute type/,
    ],
    [{ enabled: true, names: { allowed: [] } }, /unknown option `allowed`/],
  ])('%j is refused', (est, message) => {
    expect(() => buildApp({ enableRestApi: true, store: f.store, keyBackends: { default: f.keyBackend }, est: est as never })).toThrow(
      message,
    );
  });

  test('CA_EST_CLIENT_CERT_HEADER must be a header name too', () => {
    const env = { CA_KEY_ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'), CA_EST_CLIENT_CERT_HEADER: 'ssl client cert' };
    const est = { enabled: true };
    expect(() => buildApp({ enableRestApi: true, store: f.store, keyBackends: { default: f.keyBackend }, env, est })).toThrow(
      /CA_EST_CLIENT_CERT_HEADER must be a header name/,
    );
  });
});

describe('approval (est.labels.held.approval)', () => {
  const operator = { type: 'operator', name: 'root', protocol: 'cli' };
  const services = () => ({
    store: f.store,
    keyBackends: { default: f.keyBackend },
    profiles: resolveProfiles(),
    defaultProfile: 'webserver',
  });
  const held = (body: Buffer, user = 'alice') => enroll(body.toString('base64'), user, 'held');
  const requests = async () =>
    (await f.db.knex(TABLES.enrolmentRequests).select('id', 'status', 'certificate_serial')) as {
      id: number;
      status: string;
      certificate_serial: string | null;
    }[];
  const idOf = (res: request.Response) => Number(/^Enrolment request (\d+) waits for approval/.exec(res.text)![1]);

  test('202 with Retry-After until approved, the same request once, no certificate before; then the certificate, once', async () => {
    const csr = csrDer('held1.example.org');
    const before = await certificateCount();
    const first = await held(csr);
    expect([first.status, first.headers['retry-after'], first.headers['content-type']]).toEqual([202, '5', 'text/plain; charset=utf-8']);
    expect(first.headers['content-length']).toBe(String(Buffer.byteLength(first.text)));
    const id = idOf(first);
    const again = await held(csr);
    expect([again.status, idOf(again)]).toEqual([202, id]);
    expect((await requests()).filter((r) => r.id === id)).toEqual([{ id, status: 'pending', certificate_serial: null }]);
    expect(await certificateCount()).toBe(before);
    // Another user with the same CSR is another request: the key is who asked and the CSR's key.
    const other = await held(csr, 'bob');
    expect([other.status, idOf(other) !== id]).toEqual([202, true]);

    const { certificate } = await approveEnrolmentRequest(services(), id, operator);
    expect(await certificateCount()).toBe(before + 1);
    for (let i = 0; i < 2; i++) {
      const res = await held(csr);
      expect(res.status).toBe(200);
      const certs = certsOf(res.text);
      expect(certs).toHaveLength(1);
      expect(
        text(certs[0], '-serial')
          .trim()
          .replace(/^serial=0*/, ''),
      ).toBe(certificate.serial.replace(/^0+/, ''));
    }
    expect(await certificateCount()).toBe(before + 1);
    // A second approval: refused, nothing issued.
    await expect(approveEnrolmentRequest(services(), id, operator)).rejects.toThrow(`Enrolment request ${id} was approved already.`);
    expect(await certificateCount()).toBe(before + 1);
    // The audit log: the device asked (certificate.issued), the operator approved (enrolment.approved).
    const events = (await f.db.knex(TABLES.events).where({ serial: certificate.serial }).orderBy('id')) as {
      type: string;
      actor: unknown;
    }[];
    const actor = (a: unknown) => (typeof a === 'string' ? JSON.parse(a) : a) as Record<string, unknown>;
    expect(events.map((e) => [e.type, actor(e.actor).type, actor(e.actor).name])).toEqual([
      ['certificate.issued', 'api_user', 'alice'],
      ['enrolment.approved', 'operator', 'root'],
    ]);
  });

  test("the endpoint's name policy before the request waits, its validityDays when it is approved", async () => {
    const before = (await requests()).length;
    const outside = await enroll(csrDer('other.example.org').toString('base64'), 'alice', 'heldWeek');
    expect([outside.status, outside.text]).toEqual([
      403,
      "The endpoint's name policy refuses the request: the commonName other.example.org is not among the allowed names; DNS:other.example.org is not among the allowed names.\n",
    ]);
    expect((await requests()).length).toBe(before); // nobody is asked about it
    const csr = csrDer('a.week.example.org');
    const waiting = await enroll(csr.toString('base64'), 'alice', 'heldWeek');
    expect(waiting.status).toBe(202);
    await approveEnrolmentRequest(services(), idOf(waiting), operator);
    const issued = certsOf((await enroll(csr.toString('base64'), 'alice', 'heldWeek')).text)[0];
    const notAfter = new Date(text(issued, '-enddate').trim().replace('notAfter=', '')).getTime();
    expect(Math.abs(notAfter - (Date.now() + 7 * 86_400_000))).toBeLessThan(3 * 60_000);
  });

  test('refused: 403 with the reason, to every repetition; nothing issued', async () => {
    const csr = csrDer('held2.example.org');
    const before = await certificateCount();
    const id = idOf(await held(csr));
    await refuseEnrolmentRequest(f.store, id, operator, 'Unknown device.');
    for (let i = 0; i < 2; i++) {
      const res = await held(csr);
      expect([res.status, res.text]).toEqual([403, 'Unknown device.\n']);
    }
    await expect(approveEnrolmentRequest(services(), id, operator)).rejects.toThrow(`Enrolment request ${id} was refused already.`);
    expect(await certificateCount()).toBe(before);
    expect((await requests()).filter((r) => r.id === id)).toEqual([{ id, status: 'refused', certificate_serial: null }]);
  });

  test('a one-time challenge is used up when the request waits: its repetitions need it no more, no other request can use it', async () => {
    const { secret, id: challengeId } = await createEnrolmentChallenge(f.store, {
      protocol: 'est',
      label: 'heldHooked',
      subject: null,
      san: null,
      validityMs: 3_600_000,
    });
    const withChallenge = (cn: string) => {
      const key = path.join(dir, `${cn}.key`);
      execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key], { stdio: 'pipe' });
      return csrOf(dir, key, cn, secret);
    };
    const used = async () =>
      ((await f.db.knex(TABLES.enrolmentChallenges).where({ id: challengeId }).first()) as { used: unknown }).used !== null;
    const csr = withChallenge('held-once.example.org');
    const asked = hook.asked.length;
    const first = await enroll(csr.toString('base64'), 'alice', 'heldHooked');
    expect(first.status).toBe(202);
    const id = idOf(first);
    expect(await used()).toBe(true); // used once, in the transaction that keeps the request
    // The client's repetition (the same CSR, its challenge now used): the same request, still waiting.
    const again = await enroll(csr.toString('base64'), 'alice', 'heldHooked');
    expect([again.status, idOf(again)]).toEqual([202, id]);
    // Another request with the same challenge: refused, nothing kept.
    const count = (await requests()).length;
    const other = await enroll(withChallenge('held-twice.example.org').toString('base64'), 'alice', 'heldHooked');
    expect([other.status, other.text]).toEqual([403, 'The challenge password is missing or wrong.\n']);
    expect((await requests()).length).toBe(count);
    expect(hook.asked.length).toBe(asked); // a one-time challenge, used or not, is never the webhook's to decide
    // Approved: the repetition gets the certificate.
    const before = await certificateCount();
    await approveEnrolmentRequest(services(), id, operator);
    const done = await enroll(csr.toString('base64'), 'alice', 'heldHooked');
    expect([done.status, certsOf(done.text).length]).toEqual([200, 1]);
    expect(await certificateCount()).toBe(before + 1);
  });

  test('the label without approval still answers at once; a body that is no CSR is refused (400) before anything waits', async () => {
    expect((await enroll(csrDer('at-once.example.org').toString('base64'))).status).toBe(200);
    const count = (await requests()).length;
    const res = await held(Buffer.from('not a csr'));
    expect(res.status).toBe(400);
    expect((await requests()).length).toBe(count);
  });
});
