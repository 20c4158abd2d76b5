/**
 * The example server's transport settings: HTTPS with TLS_CERT_FILE and TLS_KEY_FILE (a certificate
 * made here by openssl, for localhost, under a test CA the client trusts), a clear error exit for one
 * file without the other or a pair that does not fit; and TRUST_PROXY, Express's `trust proxy`, which
 * decides whether X-Forwarded-Proto and X-Forwarded-Host shape the URLs built from a request.
 */
import { execFileSync } from 'child_process';
import express from 'express';
import * as fs from 'fs';
import * as https from 'https';
import * as os from 'os';
import * as path from 'path';
import { applyTrustProxy, trustProxySetting } from '../../examples/host-server/listen';
import { startChildServer, stopChild } from './child-server';

let dir: string;
/** The test CA the client trusts, and the server's certificate and key it issued. */
const files = { ca: '', cert: '', key: '', otherKey: '' };
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'host-https-'));
  const file = (name: string) => path.join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(['req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-subj', '/CN=Test TLS CA', '-days', '2']);
  openssl(['req', '-new', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost']);
  fs.writeFileSync(file('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  openssl(
    ['x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial'].concat([
      '-days',
      '2',
      '-extfile',
      file('server.ext'),
      '-out',
      file('server.pem'),
    ]),
  );
  Object.assign(files, { ca: file('ca.pem'), cert: file('server.pem'), key: file('server.key'), otherKey: file('ca.key') });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A fresh, empty data directory. */
const dataDir = () => fs.mkdtempSync(path.join(dir, 'data-'));

/** GET over TLS, trusting `ca` (or the system's CAs only). */
function httpsGet(url: string, o: { ca?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca: o.ca, headers: o.headers }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

test('TLS_CERT_FILE + TLS_KEY_FILE: the API over HTTPS, with the certificate given', async () => {
  const server = await startChildServer({ CA_DATA_DIR: dataDir(), TLS_CERT_FILE: files.cert, TLS_KEY_FILE: files.key });
  try {
    expect(server.apiRoot).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/django_ca\/api$/);
    expect(server.output()).toMatch(/express-ca-api example listening on https:\/\/127\.0\.0\.1:\d+\n/);
    const ca = fs.readFileSync(files.ca, 'utf8');
    const authorization = `Basic ${Buffer.from(`${server.username}:${server.password}`).toString('base64')}`;
    const list = await httpsGet(`${server.apiRoot}/ca/`, { ca, headers: { authorization } });
    expect(list.status).toBe(200);
    expect((JSON.parse(list.body) as { certificate: { serial: string } }[]).map((c) => c.certificate.serial)).toEqual([server.caSerial]);
    // It is TLS with that certificate: without its CA the client refuses.
    await expect(httpsGet(`${server.apiRoot}/ca/`)).rejects.toThrow(/certificate/);
    // No TRUST_PROXY: a forwarded scheme or host is not believed.
    const home = await httpsGet(new URL('/', server.apiRoot).href, {
      ca,
      headers: { 'x-forwarded-proto': 'http', 'x-forwarded-host': 'evil.example' },
    });
    expect(home.body).toContain(`REST API: ${server.apiRoot}/ (docs: ${server.apiRoot}/docs/)`);
  } finally {
    await stopChild(server.child);
  }
});

test.each([
  [
    { TLS_CERT_FILE: 'cert' },
    'TLS_CERT_FILE is set but TLS_KEY_FILE is not: set both (PEM files) to serve HTTPS, or neither to serve HTTP.',
  ],
  [{ TLS_KEY_FILE: 'key' }, 'TLS_KEY_FILE is set but TLS_CERT_FILE is not: set both (PEM files) to serve HTTPS, or neither to serve HTTP.'],
  [{ TLS_CERT_FILE: 'cert', TLS_KEY_FILE: 'otherKey' }, 'TLS_CERT_FILE and TLS_KEY_FILE: '],
  [{ TLS_CERT_FILE: 'cert', TLS_KEY_FILE: 'missing' }, 'TLS_KEY_FILE: cannot read '],
  [{ TRUST_PROXY: 'nonsense' }, 'TRUST_PROXY=nonsense: invalid IP address: nonsense'],
])('%j: says why and exits 1 before it writes anything', async (settings, message) => {
  const data = dataDir();
  const env: Record<string, string> = { CA_DATA_DIR: data };
  for (const [name, value] of Object.entries(settings)) {
    env[name] = value in files ? files[value as keyof typeof files] : value === 'missing' ? path.join(dir, 'missing.pem') : value;
  }
  const failed = await startChildServer(env, undefined, { seedDatabase: false }).then(
    () => null,
    (e: Error) => e.message,
  );
  expect(failed).toMatch(/^server exited with 1:/);
  expect(failed).toContain(`\n${message}`);
  expect(fs.readdirSync(data)).toEqual([]);
});

test('TRUST_PROXY=loopback: the URLs the server builds follow X-Forwarded-Proto and X-Forwarded-Host', async () => {
  const server = await startChildServer({ CA_DATA_DIR: dataDir(), TRUST_PROXY: 'loopback' });
  try {
    const home = new URL('/', server.apiRoot).href;
    const direct = await (await fetch(home)).text();
    expect(direct).toContain(`REST API: ${server.apiRoot}/`);
    const proxied = await (await fetch(home, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'ca.example.com' } })).text();
    expect(proxied).toContain('REST API: https://ca.example.com/django_ca/api/ (docs: https://ca.example.com/django_ca/api/docs/)');
  } finally {
    await stopChild(server.child);
  }
});

describe('TRUST_PROXY reaches Express as its `trust proxy` setting', () => {
  /** Whether Express trusts a proxy at `address`, `hop` steps away, under TRUST_PROXY=raw. */
  const trusts = (raw: string | undefined, address: string, hop = 0) => {
    const app = express();
    applyTrustProxy(app, raw);
    return (app.get('trust proxy fn') as (addr: string, i: number) => boolean)(address, hop);
  };

  test.each([
    [undefined, undefined],
    ['', undefined],
    ['true', true],
    ['FALSE', false],
    ['2', 2],
    ['loopback', 'loopback'],
    [' 10.0.0.0/8, 127.0.0.1 ', '10.0.0.0/8, 127.0.0.1'],
  ])('%j → %j', (raw, setting) => expect(trustProxySetting(raw)).toEqual(setting));

  test('what each kind trusts', () => {
    expect([trusts(undefined, '127.0.0.1'), trusts('false', '127.0.0.1')]).toEqual([false, false]);
    expect([trusts('true', '203.0.113.9', 5)]).toEqual([true]);
    expect([trusts('1', '203.0.113.9', 0), trusts('1', '203.0.113.9', 1)]).toEqual([true, false]);
    expect([trusts('loopback', '127.0.0.1'), trusts('loopback', '::1'), trusts('loopback', '10.1.2.3')]).toEqual([true, true, false]);
    expect([
      trusts('10.0.0.0/8,192.0.2.1', '10.1.2.3'),
      trusts('10.0.0.0/8,192.0.2.1', '192.0.2.1'),
      trusts('10.0.0.0/8', '127.0.0.1'),
    ]).toEqual([true, true, false]);
  });
});
