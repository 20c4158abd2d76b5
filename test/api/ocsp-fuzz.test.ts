/**
 * The OCSP responder under hostile input, through HTTP: thousands of seeded bodies (mutations of a
 * real request, random bytes, deep nesting) and paths (random text, bad base64, traversal,
 * percent-encoding) never get anything but HTTP 200 with a well-formed OCSPResponse (RFC 6960 §4.2.1)
 * — an error status, or a signed answer when a mutation still is a request — and the responder keeps
 * answering a real request correctly afterwards.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import fc from 'fast-check';
import request from 'supertest';
import { readTlv, readTlvChildren } from '../../lib/x509/tlv';
import { pemEncode } from '../../lib/x509/pem';
import { setupApi, type ApiFixture } from './fixture';

let f: ApiFixture;
let dir: string;
let valid: Buffer;
let url: string;

beforeAll(async () => {
  f = await setupApi();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocsp-fuzz-'));
  fs.writeFileSync(path.join(dir, 'ca.pem'), pemEncode(f.ca.der, 'CERTIFICATE'));
  execFileSync('openssl', ['ocsp', '-issuer', 'ca.pem', '-serial', '0x1234', '-reqout', 'req.der'], { cwd: dir, stdio: 'pipe' });
  valid = fs.readFileSync(path.join(dir, 'req.der'));
  url = `/django_ca/ocsp/${f.ca.serial}/cert/`;
});
afterAll(async () => {
  await f.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function binary(res: request.Response, cb: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
}

/** The responseStatus of a well-formed OCSPResponse; throws on anything else. */
function responseStatus(res: request.Response): number {
  if (res.status !== 200 || res.headers['content-type'] !== 'application/ocsp-response') {
    throw new Error(`HTTP ${res.status} ${res.headers['content-type']}`);
  }
  const der = res.body as Buffer;
  const top = readTlv(der, 0, der.length, 'OCSPResponse');
  if (top.tag !== 0x30 || top.end !== der.length) throw new Error('not one SEQUENCE');
  const [status, bytes, ...rest] = readTlvChildren(der, top, 'OCSPResponse');
  if (status.tag !== 0x0a || status.end - status.contentStart !== 1 || rest.length) throw new Error('bad responseStatus');
  const code = der[status.contentStart];
  if (![0, 1, 2, 3, 5, 6].includes(code)) throw new Error(`unknown status ${code}`);
  if ((code === 0) !== (bytes !== undefined)) throw new Error('responseBytes must come with success only');
  return code;
}

const post = (body: Buffer) =>
  request(f.app).post(url).set('Content-Type', 'application/ocsp-request').send(body).buffer(true).parse(binary);

test('2,500 seeded bodies: always a well-formed OCSP response', async () => {
  const mutated = fc
    .tuple(fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }), fc.nat({ max: 10 }))
    .map(([edits, cut]) => {
      const bytes = Buffer.from(valid);
      for (const [at, value] of edits) bytes[at % bytes.length] = value;
      return bytes.subarray(0, Math.max(0, bytes.length - cut));
    });
  const random = fc.uint8Array({ maxLength: 600 }).map((b) => Buffer.from(b));
  const nested = fc
    .integer({ min: 1, max: 5000 })
    .map((depth) => Buffer.concat([Buffer.alloc(depth, 0x30).map((_, i) => (i % 2 ? 0x80 : 0x30)), Buffer.from([0x05, 0x00])]));
  const samples = fc.sample(fc.oneof(mutated, random, nested), { seed: 20261124, numRuns: 2500 });
  const seen = new Set<number>();
  for (const body of samples) seen.add(responseStatus(await post(body)));
  expect(seen.has(1)).toBe(true); // malformedRequest happened, and nothing else broke
});

test('1,000 seeded paths: always a well-formed OCSP response', async () => {
  const text = fc.string({ unit: 'binary', maxLength: 200 }).map((s) => encodeURIComponent(s));
  const base64ish = fc.stringMatching(/^[A-Za-z0-9+/=%]{0,300}$/);
  const traversal = fc.constantFrom(
    '..%2F..%2Fetc%2Fpasswd',
    '%2e%2e/%2e%2e/',
    '%00',
    '%ZZ',
    '////',
    'AAAA%',
    valid.toString('base64').slice(0, 40),
  );
  const samples = fc.sample(fc.oneof(text, base64ish, traversal), { seed: 7, numRuns: 1000 });
  for (const rest of samples) {
    if (rest === '') continue;
    const res = await request(f.app).get(`${url}${rest}`).buffer(true).parse(binary);
    responseStatus(res);
  }
});

test('the responder keeps answering a real request', async () => {
  const res = await post(valid);
  expect(responseStatus(res)).toBe(0);
  fs.writeFileSync(path.join(dir, 'resp.der'), res.body as Buffer);
  expect(execFileSync('openssl', ['ocsp', '-respin', 'resp.der', '-resp_text', '-noverify'], { cwd: dir }).toString()).toContain(
    'Cert Status: unknown',
  );
});
