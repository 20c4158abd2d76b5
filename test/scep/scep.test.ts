/**
 * `createCaApiRouter({ scep })` (docs/guides/scep.md): the SCEP endpoints of RFC 8894 through the router,
 * on PGlite, on an RSA CA and a labelled EC CA: GetCACaps, GetCACert (the registration authority made
 * once per CA, certified for encryption and signatures, stored as a delegate key), PKIOperation with
 * requests built as clients build them (test/helpers/scep-request.ts) and openssl as the oracle of
 * what comes back; every refusal a signed FAILURE with its failInfo or a plain-text error, nothing
 * issued.
 */
import { execFileSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import request from 'supertest';
import { TABLES } from '../../adapters/store/knex/tables';
import { OptionsError } from '../../lib';
import { resolveScepOptions } from '../../lib/scep/options';
import { buildApp } from '../helpers/http';
import { setupApi, type ApiFixture } from '../api/fixture';
import { binary, CAPABILITIES, certsOf, expectRaCertificate } from '../helpers/scep-request';

let f: ApiFixture;
let built: ReturnType<typeof buildApp>;
let app: ReturnType<typeof buildApp>['app'];
let dir: string;
const SCEP = '/django_ca/scep';
const CHALLENGE = 'device-secret';

beforeAll(async () => {
  f = await setupApi();
  const rsa = await f.makeCa({ name: 'rsa devices', keyType: 'RSA', keySize: 2048 });
  built = buildApp({
    enableRestApi: true,
    store: f.store,
    keyBackends: { default: f.keyBackend },
    scep: {
      enabled: true,
      ca: rsa.name,
      challenge: CHALLENGE,
      labels: { ec: { ca: f.ca.serial, profile: 'client', challenge: 'ec-secret' } },
    },
  });
  app = built.app;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scep-'));
});
afterAll(async () => {
  await built?.close();
  await f?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const certificateCount = async () => Number((await f.db.knex(TABLES.certificates).count({ n: '*' }))[0].n);

const text = (pem: string) => execFileSync('openssl', ['x509', '-noout', '-text'], { input: pem }).toString();

describe('GetCACaps and GetCACert', () => {
  test('the capabilities, one per line, at every form of the URL', async () => {
    for (const p of [
      '',
      '/',
      '/pkiclient.exe',
      '/cgi-bin/pkiclient.exe',
      '/ec',
      '/ec/',
      '/ec/pkiclient.exe',
      '/ec/cgi-bin/pkiclient.exe',
    ]) {
      const res = await request(app).get(`${SCEP}${p}?operation=GetCACaps`);
      expect([p, res.status, res.headers['content-type']]).toEqual([p, 200, 'text/plain']);
      expect(res.text.split('\n')).toEqual(CAPABILITIES);
    }
  });

  test('the RA first, then the CA and its chain up to the root; the RA made once, RSA-2048, for encryption and signatures only', async () => {
    const res = await request(app).get(`${SCEP}/ec?operation=GetCACert&message=anything`).buffer(true).parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-x509-ca-ra-cert');
    const [ra, ca, root] = certsOf(res.body as Buffer);
    expect(certsOf(res.body as Buffer)).toHaveLength(3);
    const raText = text(ra);
    expectRaCertificate(raText);
    expect(raText).toMatch(/Subject: CN ?= ?.* SCEP RA/);
    fs.writeFileSync(path.join(dir, 'chain.pem'), ca);
    fs.writeFileSync(path.join(dir, 'root.pem'), root);
    fs.writeFileSync(path.join(dir, 'ra.pem'), ra);
    const verified = execFileSync('openssl', ['verify', '-CAfile', 'root.pem', '-untrusted', 'chain.pem', 'ra.pem'], {
      cwd: dir,
    }).toString();
    expect(verified).toBe('ra.pem: OK\n');

    // The same RA again (another message value too), kept as the CA's delegate key, encrypted at rest.
    const again = await request(app).get(`${SCEP}/ec/pkiclient.exe?operation=GetCACert&message=1`).buffer(true).parse(binary);
    expect(certsOf(again.body as Buffer)[0]).toBe(ra);
    const rows = await f.db.knex('ca_api_delegate_keys').where({ ca_id: f.ca.id });
    expect(rows).toHaveLength(1);
    expect(rows[0].purpose).toBe('scep_ra');
    expect(JSON.stringify(rows[0].key_backend_options)).not.toMatch(/BEGIN|PRIVATE/);
  });

  test('each CA its own RA: the label-less URL enrols with the RSA CA', async () => {
    const res = await request(app).get(`${SCEP}?operation=GetCACert`).buffer(true).parse(binary);
    const [ra, ca] = certsOf(res.body as Buffer);
    expect(text(ca)).toMatch(/Subject: CN ?= ?rsa devices/);
    expect(text(ra)).toMatch(/Issuer: CN ?= ?rsa devices/);
  });
});

describe('errors before a CertRep can be signed: plain text with their status, nothing stored', () => {
  test.each([
    ['an unknown operation', 'get', '?operation=GetNextCACert', 400, /Unknown SCEP operation "GetNextCACert"/],
    ['no operation', 'get', '', 400, /Unknown SCEP operation ""/],
    ['GET PKIOperation without a message', 'get', '?operation=PKIOperation', 400, /message parameter/],
    ['a message that is not base64', 'get', '?operation=PKIOperation&message=%25%25%25', 400, /not base64/],
    ['a message that is no PKCS#7', 'get', '?operation=PKIOperation&message=AAAA', 400, /cannot be read/],
    ['GetCACaps over POST', 'post', '?operation=GetCACaps', 400, /Unknown SCEP operation "GetCACaps"/],
  ])('%s', async (_what, method, query, status, reason) => {
    const before = await certificateCount();
    const res = await (method === 'get'
      ? request(app).get(`${SCEP}${query}`)
      : request(app).post(`${SCEP}${query}`).send(Buffer.from('x')));
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toMatch(reason);
    expect(await certificateCount()).toBe(before);
  });

  test('an unknown label is a 404, another method a 405, garbage and truncated bodies a 400, an oversized one a 413', async () => {
    expect((await request(app).get(`${SCEP}/nope?operation=GetCACaps`)).status).toBe(404);
    const put = await request(app).put(`${SCEP}?operation=PKIOperation`).send('x');
    expect([put.status, put.headers.allow]).toEqual([405, 'GET, POST']);
    const garbage = await request(app)
      .post(`${SCEP}?operation=PKIOperation`)
      .set('Content-Type', 'application/octet-stream')
      .send(crypto.randomBytes(300));
    expect([garbage.status, garbage.text]).toEqual([400, expect.stringMatching(/cannot be read/)]);
    const big = await request(app)
      .post(`${SCEP}?operation=PKIOperation`)
      .send(Buffer.alloc(256 * 1024 + 1, 0x30));
    expect(big.status).toBe(413);
    expect(big.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  test.each([
    ['a path outside the table', `${SCEP}/ec/other/thing?operation=GetCACaps`],
    ['a long path outside the table', `${SCEP}/ec/${'x'.repeat(9000)}/more?operation=GetCACaps`],
    ['a label with markup', `${SCEP}/%3Cscript%3E?operation=GetCACaps`],
  ])('%s: a plain-text 404 that does not echo the path', async (_what, url) => {
    const res = await request(app).get(url);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).not.toMatch(/xxxx|script|<|Cannot GET/);
    expect(res.text.length).toBeLessThan(200);
  });

  test('an unknown operation and an unknown label are quoted as a short escaped prefix, not echoed whole', async () => {
    const operation = await request(app).get(`${SCEP}?operation=PKIOperation;message=${'M'.repeat(8000)}`);
    expect(operation.status).toBe(400);
    expect(operation.text).toBe(
      `Unknown SCEP operation "PKIOperation;message=${'M'.repeat(19)}"... (8021 characters): ` +
        'use GetCACaps, GetCACert or PKIOperation (RFC 8894 §4).\n',
    );
    const escaped = await request(app).get(`${SCEP}?operation=%1B%5B31m%0Aevil`);
    expect(escaped.text).toBe('Unknown SCEP operation "%1B%5B31m%0Aevil": use GetCACaps, GetCACert or PKIOperation (RFC 8894 §4).\n');
    const label = await request(app).get(`${SCEP}/${'L'.repeat(1000)}?operation=GetCACaps`);
    expect(label.status).toBe(404);
    expect(label.text).toBe(`No SCEP endpoint is labelled "${'L'.repeat(40)}"... (1000 characters).\n`);
  });
});

describe('options', () => {
  test('defaults: off, the default CA, the legacy algorithms accepted, 256 KiB; CA_SCEP_CHALLENGE where no challenge is given', () => {
    const r = resolveScepOptions(undefined, false, 'from-env');
    expect(r).toMatchObject({ enabled: false, legacyAlgorithms: true, bodyLimit: 256 * 1024 });
    expect(r.endpoints.get('')).toEqual({
      ca: null,
      profile: null,
      challenge: 'from-env',
      validityDays: null,
      approval: false,
      names: null,
      challengeWebhook: null,
      requestsPerMinute: null,
    });
    expect(resolveScepOptions({ challenge: 'given' }, true, 'from-env').endpoints.get('')?.challenge).toBe('given');
    expect(resolveScepOptions({ requestsPerMinute: 5 }, true, null).endpoints.get('')?.requestsPerMinute).toBe(5);
    expect(() => resolveScepOptions({ requestsPerMinute: -1 }, true, null)).toThrow(/`scep.requestsPerMinute` must be a whole number/);
  });

  test.each([
    [{ labels: { 'pkiclient.exe': { ca: 'x' } } }, /cannot be a label/],
    [{ labels: { phones: {} } }, /`scep.labels.phones.ca` is required/],
    [{ labels: { phones: { ca: 'x', password: 'y' } } }, /password/],
    [{ challenge: '' }, /`scep.challenge` must be a non-empty string/],
    [{ legacyAlgorithms: 'no' }, /scep.legacyAlgorithms/],
    [{ bodyLimit: 0 }, /`scep.bodyLimit` must be a positive whole number/],
    ['yes', /option `scep` must be an object/],
  ])('%j is refused', (options, message) => {
    expect(() => resolveScepOptions(options, false, null)).toThrow(OptionsError);
    expect(() => resolveScepOptions(options, false, null)).toThrow(message);
  });
});
