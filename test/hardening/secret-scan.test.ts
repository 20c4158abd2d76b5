/**
 * Secrets never leave the process (docs/operations/kek-rotation.md, docs/CONTRIBUTING.md
 * "Never log keys or passwords"): a full run — `ca-admin` in-process (init_ca, import_ca of a
 * password-protected key, create_api_user, sign/resign/revoke, CRLs, OCSP keys, rotate_kek) and the
 * router on a real HTTP server (logins right and wrong, brute force, sign/resign/revoke, bad bodies,
 * the docs, CRLs and OCSP, a server with the wrong key-encryption key, a database failure) — with every
 * output captured: stdout and stderr writes, every console method (where the router's and the order
 * runner's default `logError` go), the CLI's streams, and every HTTP answer's status line, headers and
 * body. Then all of it is searched for every password, key-encryption key and private key the run
 * used, in every form they could take (PEM, DER as base64 or hex, the private scalar or exponent as
 * hex, base64 or decimal, partial windows of those).
 */
import { execFileSync } from 'child_process';
import { createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'crypto';
import * as fs from 'fs';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { Readable } from 'stream';
import { format, inspect } from 'util';
import express from 'express';
import type { Server } from 'http';
import { decryptKey, loadKek, parseEnvelope } from '../../adapters/keys/kek';
import { TABLES } from '../../adapters/store/knex/tables';
import { answerClientErrorsAsJson, createCaApiRouter, defaultKeyBackend, type CaApiRouter } from '../../lib';
import { runCaAdmin } from '../../lib/cli/main';
import { opensslCsr } from '../cli/openssl';
import { CORPUS_DIR } from '../helpers/corpus';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';

// ---------------------------------------------------------------------------------------------------
// The scanner: secrets in every form, searched in raw text and in text with whitespace, JSON escapes
// and colons removed (PEM line breaks, escaped PEM in JSON, colon-separated hex).

interface Needle {
  label: string;
  text: string;
  /** Hex is searched case-insensitively. */
  hex?: boolean;
}

const hex = (b: Buffer) => b.toString('hex');

/** 12-byte windows of `bytes` as hex: a partial leak (a truncated key in a message) is still found. */
function hexWindows(label: string, bytes: Buffer): Needle[] {
  const out: Needle[] = [];
  for (let i = 0; i + 12 <= bytes.length; i += 4)
    out.push({ label: `${label} (hex window @${i})`, text: hex(bytes.subarray(i, i + 12)), hex: true });
  return out;
}

/** Base64 windows of `der` that encode only bytes of `part` (wherever `part` sits in `der`). */
function base64Windows(label: string, der: Buffer, part: Buffer): Needle[] {
  const at = der.indexOf(part);
  if (at < 0) return [];
  const b64 = der.toString('base64');
  const first = Math.ceil((at * 4) / 3) + 4;
  const last = Math.floor(((at + part.length) * 4) / 3) - 4;
  const out: Needle[] = [];
  for (let i = first; i + 24 <= last; i += 12) out.push({ label: `${label} (base64 window @${i})`, text: b64.slice(i, i + 24) });
  return out;
}

/** Every form a private key could leak in. */
function keyNeedles(label: string, key: KeyObject): Needle[] {
  const pkcs8 = key.export({ type: 'pkcs8', format: 'der' });
  const encodings: [string, Buffer][] = [['PKCS#8 DER', pkcs8]];
  if (key.asymmetricKeyType === 'rsa') encodings.push(['PKCS#1 DER', key.export({ type: 'pkcs1', format: 'der' })]);
  if (key.asymmetricKeyType === 'ec') encodings.push(['SEC1 DER', key.export({ type: 'sec1', format: 'der' })]);
  const jwk = key.export({ format: 'jwk' }) as Record<string, string | undefined>;
  const parts = (['d', 'p', 'q', 'dp', 'dq', 'qi'] as const)
    .filter((c) => jwk[c])
    .map((c) => [c, Buffer.from(jwk[c]!, 'base64url')] as const);
  const needles: Needle[] = [];
  for (const [name, der] of encodings) {
    needles.push({ label: `${label} ${name} as base64/PEM`, text: der.toString('base64') });
    needles.push({ label: `${label} ${name} as hex`, text: hex(der), hex: true });
    for (const [c, bytes] of parts) needles.push(...base64Windows(`${label} ${name} around ${c}`, der, bytes));
  }
  for (const [c, bytes] of parts) {
    needles.push({ label: `${label} ${c} as base64url`, text: bytes.toString('base64url') });
    needles.push({ label: `${label} ${c} as base64`, text: bytes.toString('base64') });
    needles.push({ label: `${label} ${c} as decimal`, text: BigInt(`0x${hex(bytes)}`).toString(10) });
    needles.push({ label: `${label} ${c} as hex`, text: hex(bytes), hex: true });
    needles.push(...hexWindows(`${label} ${c}`, bytes));
  }
  return needles;
}

function kekNeedles(label: string, kek: string): Needle[] {
  const raw = Buffer.from(kek, 'base64');
  return [
    { label: `${label} as given`, text: kek },
    { label: `${label} as base64url`, text: raw.toString('base64url') },
    { label: `${label} as hex`, text: hex(raw), hex: true },
    ...hexWindows(label, raw),
    ...base64Windows(label, raw, raw),
  ];
}

function passwordNeedles(label: string, password: string, username?: string): Needle[] {
  const needles: Needle[] = [
    { label, text: password },
    { label: `${label} as base64`, text: Buffer.from(password).toString('base64').replace(/=+$/, '') },
  ];
  if (username)
    needles.push({
      label: `${label} in a Basic header`,
      text: Buffer.from(`${username}:${password}`).toString('base64').replace(/=+$/, ''),
    });
  return needles;
}

interface Captured {
  where: string;
  text: string;
}

function scan(captured: Captured[], needles: Needle[]): string[] {
  const findings = new Set<string>();
  for (const { where, text } of captured) {
    const flat = text.replace(/\\[nrt]|\s|:/g, '');
    const lower = flat.toLowerCase();
    for (const n of needles) {
      const hit = n.hex ? lower.includes(n.text.toLowerCase()) : text.includes(n.text) || flat.includes(n.text);
      if (hit) findings.add(`${n.label} — in ${where}`);
    }
  }
  return [...findings].sort();
}

// ---------------------------------------------------------------------------------------------------

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'secret-scan-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function openssl(args: string[]): void {
  execFileSync('openssl', args, { cwd: tmp, stdio: 'pipe' });
}

describe('the scanner', () => {
  const key = createPrivateKey(
    execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024'], { stdio: 'pipe' }),
  );
  const needles = [
    ...keyNeedles('k', key),
    ...kekNeedles('kek', 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8='),
    ...passwordNeedles('pw', 'hunter2-x', 'u'),
  ];
  const pem = key.export({ type: 'pkcs8', format: 'pem' }) as string;
  const jwk = key.export({ format: 'jwk' });

  it.each([
    ['a PEM', pem],
    ['a PEM escaped inside JSON', JSON.stringify({ detail: pem })],
    ['a PKCS#1 PEM cut off half way', (key.export({ type: 'pkcs1', format: 'pem' }) as string).slice(0, 700)],
    [
      'the private exponent, colon-separated upper-case hex',
      Buffer.from(jwk.d!, 'base64url')
        .toString('hex')
        .toUpperCase()
        .replace(/(..)(?!$)/g, '$1:'),
    ],
    ['a prime in a JWK', JSON.stringify({ p: jwk.p })],
    ['the KEK as hex', '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'],
    ['a password', 'login failed for u with hunter2-x'],
    ['a Basic header', `Authorization: Basic ${Buffer.from('u:hunter2-x').toString('base64')}`],
  ])('finds %s', (_name, text) => {
    expect(scan([{ where: 'test', text }], needles).length).toBeGreaterThan(0);
  });

  it('finds nothing in the public half', () => {
    const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
    const text = [spki.toString('base64'), spki.toString('hex'), JSON.stringify(key.export({ format: 'jwk' }), ['n', 'e', 'kty'])].join(
      '\n',
    );
    expect(scan([{ where: 'test', text }], needles)).toEqual([]);
  });
});

describe.each(testDatabaseTargets())('a full run on $name', (target) => {
  const KEK = randomBytes(32).toString('base64');
  const NEW_KEK = randomBytes(32).toString('base64');
  const WRONG_KEK = randomBytes(32).toString('base64');
  /** A key-encryption key with a typo: the error must say "not valid base64", not echo it. */
  const MISTYPED_KEK = `${KEK.slice(0, 20)}!${KEK.slice(21)}`;
  const pw = (name: string) => `${name}-${randomBytes(12).toString('base64url')}`;
  const PASSWORDS = {
    alice: pw('alice'),
    bob: pw('bob'),
    carol: pw('carol'),
    duplicate: pw('dup'),
    typo: pw('typo'),
    wrongLogin: pw('wrong'),
    unknownUser: pw('nobody'),
    bruteForce: pw('brute'),
    duringOutage: pw('outage'),
    wrongImport: pw('import'),
  };
  const IMPORT_PASSWORD = 'testpassword'; // of the corpus's pwd.key.der (its pwd.json says so)

  const captured: Captured[] = [];
  const record = (where: string, text: string) => captured.push({ where, text });
  const restore: (() => void)[] = [];
  let db: TestDatabase;
  let server: Server;
  let router: CaApiRouter;
  let base: string;
  /** The client's private key that it pastes where the CSR belongs, by mistake: it must not come back. */
  let pastedKey: KeyObject;

  /** Everything written to stdout/stderr or through console.* from now on is recorded (and not printed). */
  function captureOutput(): void {
    for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
      const spy = jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        record(`console.${method}`, format(...args));
        record(`console.${method} (deep)`, args.map((a) => inspect(a, { depth: 8, showHidden: true })).join(' '));
      });
      restore.push(() => spy.mockRestore());
    }
    for (const stream of ['stdout', 'stderr'] as const) {
      const spy = jest.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
        record(`process.${stream}`, Buffer.from(chunk).toString('utf8'));
        return true;
      });
      restore.push(() => spy.mockRestore());
    }
  }

  async function cli(
    argv: string[],
    env: Record<string, string> = {},
    stdin?: string,
  ): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await runCaAdmin(argv, {
      stdout: { write: (c) => (out += Buffer.from(c).toString('utf8')) },
      stderr: { write: (c) => (err += Buffer.from(c).toString('utf8')) },
      env: { CA_KEY_ENCRYPTION_KEY: KEK, CA_DEFAULT_HOSTNAME: new URL(base).host, ...env },
      store: db.store,
      bcryptCost: 4,
      ...(stdin === undefined ? {} : { stdin: Readable.from([stdin]) }),
    });
    record(`ca-admin ${argv[0]} stdout`, out);
    record(`ca-admin ${argv[0]} stderr`, err);
    return { code, out, err };
  }

  interface Answer {
    status: number;
    body: Buffer;
    json(): Record<string, unknown>;
  }

  async function http(
    method: string,
    url: string,
    options: { user?: [string, string]; body?: string | Buffer; headers?: Record<string, string>; root?: string } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.user) headers.Authorization = `Basic ${Buffer.from(options.user.join(':')).toString('base64')}`;
    if (typeof options.body === 'string') headers['Content-Type'] ??= 'application/json';
    const res = await fetch(`${options.root ?? base}${url}`, { method, headers, body: options.body });
    const body = Buffer.from(await res.arrayBuffer());
    const where = `HTTP ${method} ${url} → ${res.status}`;
    record(
      `${where} (status and headers)`,
      `${res.status} ${res.statusText}\n${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}`,
    );
    record(`${where} (body)`, body.toString('utf8'));
    record(`${where} (body as hex)`, body.toString('hex'));
    return { status: res.status, body, json: () => JSON.parse(body.toString('utf8')) as Record<string, unknown> };
  }

  async function listen(keyEncryptionKey: string): Promise<{ server: Server; router: CaApiRouter; base: string }> {
    const app = express();
    const r = createCaApiRouter({
      enableRestApi: true,
      store: db.store,
      keyBackends: { default: defaultKeyBackend({ keyEncryptionKey }) },
    });
    app.use(r);
    const s = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    answerClientErrorsAsJson(s);
    return { server: s, router: r, base: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
  }

  const close = async (s: Server, r: CaApiRouter) => {
    await new Promise<void>((resolve) => s.close(() => resolve()));
    await r.close();
  };

  /** A fresh P-256 CSR (its key beside it in `tmp`, as `<name>.key`). */
  function csr(name: string): string {
    return fs.readFileSync(opensslCsr(tmp, name, `/CN=${name}.example.com`), 'utf8');
  }

  /** Poll an order until it leaves `pending`. */
  async function settle(caSerial: string, slug: string): Promise<Record<string, unknown>> {
    for (let i = 0; i < 200; i++) {
      const order = (await http('GET', `/django_ca/api/ca/${caSerial}/orders/${slug}/`, { user: ['alice', PASSWORDS.alice] })).json();
      if (order.status !== 'pending') return order;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`order ${slug} stayed pending`);
  }

  beforeAll(async () => {
    captureOutput();
    db = await openTestDatabase(target);
    ({ server, router, base } = await listen(KEK));
    csr('pasted');
    pastedKey = createPrivateKey(fs.readFileSync(path.join(tmp, 'pasted.key')));
  });

  afterAll(async () => {
    if (server) await close(server, router).catch(() => undefined);
    await db?.close();
    for (const undo of restore.splice(0)) undo();
  });

  const API = '/django_ca/api';

  it('the run: every step answers as it should', async () => {
    // --- ca-admin: CAs (three key types), an imported password-protected key, users
    const ok = (r: { code: number; err: string }) => expect([r.code, r.err]).toEqual([0, '']);
    ok(await cli(['init_ca', '--key-type', 'EC', '--path-length', '1', '--expires', '365', 'Root', 'CN=Scan Root']));
    ok(
      await cli([
        'init_ca',
        '--key-type',
        'RSA',
        '--key-size',
        '2048',
        '--parent',
        'Root',
        '--api-enable',
        '--expires',
        '200',
        'Inter',
        'CN=Scan Inter',
      ]),
    );
    ok(
      await cli(['init_ca', '--key-type', 'Ed25519', '--parent', 'Root', '--api-enable', '--expires', '200', 'Edwards', 'CN=Scan Edwards']),
    );
    const pwd = path.join(CORPUS_DIR, 'pwd');
    const wrongImport = await cli(['import_ca', '--import-password', PASSWORDS.wrongImport, 'Imported2', `${pwd}.key.der`, `${pwd}.pem`]);
    expect(wrongImport.err).toMatch(/^Error: .*wrong password/);
    expect((await cli(['import_ca', 'Imported3', `${pwd}.key.der`, `${pwd}.pem`])).err).toMatch(/^Error: .*password/);
    // Files swapped: the (encrypted) key where the certificate belongs, the client's plain key as the CA key.
    expect((await cli(['import_ca', '--import-password', IMPORT_PASSWORD, 'Swapped', `${pwd}.pem`, `${pwd}.key.der`])).code).toBe(1);
    expect((await cli(['import_ca', 'Mismatch', path.join(tmp, 'pasted.key'), `${pwd}.pem`])).err).toMatch(/^Error: /);
    ok(await cli(['import_ca', '--import-password', IMPORT_PASSWORD, 'Imported', `${pwd}.key.der`, `${pwd}.pem`]));
    ok(await cli(['create_api_user', 'alice', '--all-permissions', '--password', PASSWORDS.alice]));
    ok(await cli(['create_api_user', 'bob', '--all-permissions'], {}, `${PASSWORDS.bob}\n`));
    ok(await cli(['create_api_user', 'carol', '--all-permissions', '--no-sign-certificate', '--password', PASSWORDS.carol]));
    expect((await cli(['create_api_user', 'alice', '--password', PASSWORDS.duplicate])).code).toBe(1);
    expect((await cli(['create_api_user', 'dave', '--pasword', PASSWORDS.typo])).code).not.toBe(0);
    const inter = (await db.store.findCaByName('Inter'))!;
    const edwards = (await db.store.findCaByName('Edwards'))!;
    const root = (await db.store.findCaByName('Root'))!;

    // --- logins: right, wrong, unknown, malformed; a brute-force burst ends in 429
    const alice: [string, string] = ['alice', PASSWORDS.alice];
    expect((await http('GET', `${API}/ca/`, { user: alice })).status).toBe(200);
    expect((await http('GET', `${API}/ca/`, { user: ['bob', PASSWORDS.bob] })).status).toBe(200);
    expect((await http('GET', `${API}/ca/`, { user: ['alice', PASSWORDS.wrongLogin] })).status).toBe(401);
    expect((await http('GET', `${API}/ca/`, { user: ['mallory', PASSWORDS.unknownUser] })).status).toBe(401);
    expect(
      (await http('GET', `${API}/ca/`, { headers: { Authorization: `Basic ${Buffer.from(PASSWORDS.wrongLogin).toString('base64')}` } }))
        .status,
    ).toBe(401);
    expect((await http('GET', `${API}/ca/`, { headers: { Authorization: `Bearer ${PASSWORDS.wrongLogin}` } })).status).toBe(401);
    expect((await http('GET', `${API}/ca/`, { user: ['alice', `${PASSWORDS.alice}${'x'.repeat(70_000)}`] })).status).toBe(431);
    let last = 0;
    for (let i = 0; i < 12; i++) last = (await http('GET', `${API}/ca/`, { user: ['bob', PASSWORDS.bruteForce] })).status;
    expect(last).toBe(429);

    // --- sign, resign, revoke through the API (RSA and Ed25519 CAs); a user without the permission
    const signed: Record<string, string> = {};
    for (const ca of [inter, edwards]) {
      const order = await http('POST', `${API}/ca/${ca.serial}/sign/`, {
        user: alice,
        body: JSON.stringify({ csr: csr(`leaf-${ca.name}`), subject: [{ oid: 'CN', value: `leaf-${ca.name}.example.com` }] }),
      });
      expect(order.status).toBe(200);
      const done = await settle(ca.serial, order.json().slug as string);
      expect(done.status).toBe('issued');
      signed[ca.name] = done.serial as string;
      expect((await http('GET', `${API}/ca/${ca.serial}/certs/${signed[ca.name]}/`, { user: alice })).status).toBe(200);
    }
    const resigned = await http('POST', `${API}/ca/${inter.serial}/certs/${signed.Inter}/resign/`, { user: alice, body: '{}' });
    expect(resigned.status).toBe(200);
    expect((await settle(inter.serial, resigned.json().slug as string)).status).toBe('issued');
    expect((await http('GET', `${API}/ca/${inter.serial}/certs/`, { user: alice })).status).toBe(200);
    expect(
      (
        await http('POST', `${API}/ca/${inter.serial}/sign/`, {
          user: ['carol', PASSWORDS.carol],
          body: JSON.stringify({ csr: csr('carol') }),
        })
      ).status,
    ).toBe(403);

    // --- bad bodies, several carrying a private key the client pasted by mistake: none may come back
    const pastedPem = pastedKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const bad: [string, string, string | undefined][] = [
      ['POST', `${API}/ca/${inter.serial}/sign/`, '{"csr": '],
      ['POST', `${API}/ca/${inter.serial}/sign/`, JSON.stringify({ csr: 'not a CSR' })],
      ['POST', `${API}/ca/${inter.serial}/sign/`, JSON.stringify({ csr: pastedPem, subject: [{ oid: 'CN', value: 'x' }] })],
      [
        'POST',
        `${API}/ca/${inter.serial}/sign/`,
        JSON.stringify({ csr: pastedPem.replace('PRIVATE KEY', 'CERTIFICATE REQUEST').replace('PRIVATE KEY', 'CERTIFICATE REQUEST') }),
      ],
      ['POST', `${API}/ca/${inter.serial}/sign/`, JSON.stringify({ csr: 7, extensions: [{ type: 'key_usage', value: [pastedPem] }] })],
      ['POST', `${API}/ca/${inter.serial}/sign/`, `{"csr": ${'['.repeat(3000)}${']'.repeat(3000)}}`],
      ['PUT', `${API}/ca/${inter.serial}/`, JSON.stringify({ website: `https://example.com/${'x'.repeat(300)}` })],
      ['PUT', `${API}/ca/${inter.serial}/`, JSON.stringify({ caa_identity: pastedPem })],
      ['POST', `${API}/ca/${inter.serial}/certs/${signed.Inter}/revoke/`, JSON.stringify({ reason: pastedPem })],
      ['GET', `${API}/ca/${inter.serial}/certs/?profile=${encodeURIComponent(pastedPem)}`, undefined],
      ['GET', `${API}/ca/${encodeURIComponent(pastedPem)}/`, undefined],
    ];
    // Their statuses are the hostile-input campaign's business; here what comes back and what is logged matters.
    for (const [method, url, body] of bad) await http(method, url, { user: alice, body });

    // --- revoke through the API, the docs, CRLs and OCSP (which makes the delegated responder key)
    expect(
      (
        await http('POST', `${API}/ca/${edwards.serial}/certs/${signed.Edwards}/revoke/`, {
          user: alice,
          body: '{"reason": "key_compromise"}',
        })
      ).status,
    ).toBe(200);
    for (const page of [`${API}/docs/`, `${API}/openapi.json`]) expect((await http('GET', page)).status).toBe(200);
    for (const ca of [root, inter, edwards]) {
      expect((await http('GET', `/django_ca/issuer/${ca.serial}.der`)).status).toBe(200);
      expect((await http('GET', `/django_ca/crl/${ca.serial}/`)).status).toBe(200);
      expect((await http('GET', `/django_ca/crl/ca/${ca.serial}/?encoding=PEM`)).status).toBe(200);
      fs.writeFileSync(path.join(tmp, `${ca.name}.pem`), ca.certificate.pem);
      openssl(['ocsp', '-issuer', `${ca.name}.pem`, '-serial', `0x${signed[ca.name] ?? '01'}`, '-reqout', `${ca.name}.ocsp`]);
      const ocsp = fs.readFileSync(path.join(tmp, `${ca.name}.ocsp`));
      const posted = await http('POST', `/django_ca/ocsp/${ca.serial}/cert/`, {
        body: ocsp,
        headers: { 'Content-Type': 'application/ocsp-request' },
      });
      expect(posted.status).toBe(200);
      expect((await http('GET', `/django_ca/ocsp/${ca.serial}/cert/${encodeURIComponent(ocsp.toString('base64'))}`)).status).toBe(200);
    }
    expect(
      (
        await http('POST', `/django_ca/ocsp/${inter.serial}/cert/`, {
          body: Buffer.from(pastedPem),
          headers: { 'Content-Type': 'application/ocsp-request' },
        })
      ).status,
    ).toBe(200);

    // --- ca-admin: sign, resign, revoke, CRL, OCSP keys, listings
    const cliCsr = path.join(tmp, 'leaf-Inter.csr');
    const fromCli = await cli(['sign_cert', '--ca', 'Inter', '--csr', cliCsr, '--subject', 'CN=cli.example.com']);
    ok(fromCli);
    const cliSerial = execFileSync('openssl', ['x509', '-noout', '-serial'], { input: fromCli.out })
      .toString()
      .trim()
      .split('=')[1]
      .replace(/^0+/, '');
    ok(await cli(['resign_cert', cliSerial]));
    ok(await cli(['revoke_cert', cliSerial, '--reason', 'superseded']));
    ok(await cli(['dump_crl', '--ca', 'Inter', '-']));
    ok(await cli(['generate_ocsp_keys', '--force']));
    ok(await cli(['list_cas', '--tree']));
    ok(await cli(['view_ca', 'Inter']));
    expect((await cli(['sign_cert', '--ca', 'Inter', '--csr', path.join(tmp, 'pasted.key')])).code).toBe(1);

    // --- the wrong key-encryption key: ca-admin with a wrong or mistyped one, a server with a wrong one
    expect(
      (
        await cli(['sign_cert', '--ca', 'Inter', '--csr', cliCsr, '--subject', 'CN=again.example.com'], {
          CA_KEY_ENCRYPTION_KEY: WRONG_KEK,
        })
      ).err,
    ).toMatch(/^Error: The key-encryption key does not match/);
    expect(
      (
        await cli(['sign_cert', '--ca', 'Inter', '--csr', cliCsr, '--subject', 'CN=again.example.com'], {
          CA_KEY_ENCRYPTION_KEY: MISTYPED_KEK,
        })
      ).err,
    ).toMatch(/^Error: The key-encryption key is not valid base64/);
    const wrong = await listen(WRONG_KEK);
    try {
      const order = await http('POST', `${API}/ca/${inter.serial}/sign/`, {
        root: wrong.base,
        user: alice,
        body: JSON.stringify({ csr: csr('wrong-kek'), subject: [{ oid: 'CN', value: 'wrong-kek.example.com' }] }),
      });
      expect(order.status).toBe(200);
      // That server's own runner took the order (leased to it) and failed it; say why, without the key.
      let failed: Record<string, unknown> = {};
      for (let i = 0; i < 200 && failed.status !== 'failed'; i++) {
        failed = (
          await http('GET', `${API}/ca/${inter.serial}/orders/${order.json().slug as string}/`, { root: wrong.base, user: alice })
        ).json();
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(failed.status).toBe('failed');
      await http(
        'GET',
        `/django_ca/ocsp/${inter.serial}/cert/${encodeURIComponent(fs.readFileSync(path.join(tmp, 'Inter.ocsp')).toString('base64'))}`,
        { root: wrong.base },
      );
      await http('GET', `/django_ca/crl/${inter.serial}/`, { root: wrong.base });
    } finally {
      await close(wrong.server, wrong.router);
    }

    // --- a database failure: tables gone for a while (statements fail), then back
    await db.knex.schema.renameTable(TABLES.certificates, 'scan_certificates_away');
    await db.knex.schema.renameTable(TABLES.users, 'scan_users_away');
    try {
      expect((await http('GET', `${API}/ca/${inter.serial}/certs/`, { user: alice })).status).toBeGreaterThanOrEqual(500);
      expect((await http('GET', `${API}/ca/`, { user: ['erin', PASSWORDS.duringOutage] })).status).toBeGreaterThanOrEqual(500);
      expect((await cli(['create_api_user', 'erin', '--password', PASSWORDS.duringOutage])).code).toBe(1);
      expect((await cli(['sign_cert', '--ca', 'Inter', '--csr', cliCsr, '--subject', 'CN=again.example.com'])).code).toBe(1);
    } finally {
      await db.knex.schema.renameTable('scan_certificates_away', TABLES.certificates);
      await db.knex.schema.renameTable('scan_users_away', TABLES.users);
    }
    expect((await http('GET', `${API}/ca/${inter.serial}/certs/`, { user: alice })).status).toBe(200);

    // --- rotate the key-encryption key last (the keys are then read back under the new one)
    const rotated = await cli(['rotate_kek', '--new-key-env', 'SCAN_NEW_KEK'], { SCAN_NEW_KEK: NEW_KEK });
    expect(rotated.code).toBe(0);
    expect(rotated.out).toMatch(/^Re-encrypted \d+ key\(s\)/);
    expect(rotated.err).toMatch(/^Now set CA_KEY_ENCRYPTION_KEY to the new key/); // what to do next: stderr
    await close(server, router);
    server = undefined as unknown as Server;

    // The capture worked: the database failure was logged through the default logError.
    expect(captured.some((c) => c.where.startsWith('console.error') && c.text.includes('express-ca-api'))).toBe(true);
  }, 300_000);

  it('no password, key-encryption key or private key appears in any output or answer', async () => {
    // Under the new KEK once rotate_kek ran (the run ends with it); under the first one if the run stopped early.
    const keks = [loadKek(KEK)!, loadKek(NEW_KEK)!];
    const open = (stored: unknown) => {
      const envelope = parseEnvelope(stored);
      const der = decryptKey(
        keks.find((k) => k.id === envelope.kekId)!,
        envelope,
      );
      return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    };
    const keys: [string, KeyObject][] = [['the key pasted as a CSR', pastedKey]];
    for (const ca of await db.store.listCas()) {
      if (ca.keyBackendOptions) keys.push([`CA key of ${ca.name}`, open(ca.keyBackendOptions.privateKey)]);
      const row = (await db.knex(TABLES.cas).select('ocsp_key_backend_options').where({ id: ca.id }).first()) as {
        ocsp_key_backend_options: unknown;
      };
      const raw = row.ocsp_key_backend_options;
      const responder = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { key_backend_options?: { privateKey: unknown } } | null;
      if (responder?.key_backend_options) {
        keys.push([`OCSP responder key of ${ca.name}`, open(responder.key_backend_options.privateKey)]);
      }
    }
    // Every CA with a key, and the responders OCSP made (delegated signing is the default).
    expect(keys.map(([label]) => label)).toEqual(
      expect.arrayContaining([
        'CA key of Root',
        'CA key of Inter',
        'CA key of Edwards',
        'CA key of Imported',
        'OCSP responder key of Inter',
        'OCSP responder key of Edwards',
      ]),
    );
    const imported = createPrivateKey({
      key: fs.readFileSync(path.join(CORPUS_DIR, 'pwd.key.der')),
      format: 'der',
      type: 'pkcs8',
      passphrase: IMPORT_PASSWORD,
    });
    keys.push(['the imported key as read from its file', imported]);

    const needles: Needle[] = [
      ...keys.flatMap(([label, key]) => keyNeedles(label, key)),
      ...kekNeedles('the key-encryption key', KEK),
      ...kekNeedles('the new key-encryption key', NEW_KEK),
      ...kekNeedles('the wrong key-encryption key', WRONG_KEK),
      { label: 'the mistyped key-encryption key', text: MISTYPED_KEK },
      ...passwordNeedles('the import password', IMPORT_PASSWORD),
      ...Object.entries(PASSWORDS).flatMap(([name, p]) =>
        passwordNeedles(
          `password ${name}`,
          p,
          name === 'unknownUser' ? 'mallory' : name === 'bruteForce' ? 'bob' : name === 'wrongLogin' ? 'alice' : name,
        ),
      ),
    ];
    expect(captured.length).toBeGreaterThan(100);
    expect(scan(captured, needles)).toEqual([]);
  });
});
