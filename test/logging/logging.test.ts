/**
 * Logs (docs/operations/logs.md): the default JSON-lines logger never writes a password, an
 * `Authorization` header, a key or a PIN, wherever in the fields it is; the router's access log
 * writes one line per request with who, from where and through which way in — and a REST change
 * records that address in the audit log.
 */
import request from 'supertest';
import { jsonLinesLogger, loginAttemptLimiter, OptionsError } from '../../lib';
import { resolveOptions } from '../../lib/options';
import { verifyAuditChain } from '../../lib/audit/audit-chain';
import { API, opensslCsr, PASSWORD, setupApi, waitForOrder, type ApiFixture } from '../api/fixture';
import { authHeader } from '../helpers/http';

const PEM_KEY = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----';
const SECRETS = ['hunter2-secret', 'c2VjcmV0LWNyZWRz', '4711', 'MIGHAgEAMBMGByqGSM49', 'kek-material-xyz', 'eyJhbGciOi.token'];

function capture() {
  const lines: string[] = [];
  return {
    lines,
    stream: { write: (line: string) => lines.push(line) },
    parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('jsonLinesLogger', () => {
  it('writes one JSON object per line: time, level, message, bindings and fields; below its level nothing', () => {
    const out = capture();
    const log = jsonLinesLogger({ stream: out.stream, level: 'warn', now: () => new Date('2026-01-02T03:04:05Z') });
    log.info('not written');
    log.child({ module: 'acme' }).warn('slow', { ms: 12, when: new Date('2026-01-01T00:00:00Z'), der: Buffer.alloc(5) });
    log.error('failed');
    expect(out.lines.every((l) => l.endsWith('\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
    expect(out.parsed()).toEqual([
      {
        time: '2026-01-02T03:04:05.000Z',
        level: 'warn',
        msg: 'slow',
        module: 'acme',
        ms: 12,
        when: '2026-01-01T00:00:00.000Z',
        der: '[5 bytes]',
      },
      { time: '2026-01-02T03:04:05.000Z', level: 'error', msg: 'failed' },
    ]);
  });

  it('never writes a password, Authorization header, key, KEK, PIN or token, at any depth or inside an error', () => {
    const out = capture();
    const log = jsonLinesLogger({ stream: out.stream }).child({ password: 'hunter2-secret' });
    const err = Object.assign(new Error(`could not load ${PEM_KEY} with Bearer eyJhbGciOi.token`), {
      cause: { importPassword: 'hunter2-secret' },
    });
    log.error('request failed', {
      err,
      headers: { Authorization: 'Basic c2VjcmV0LWNyZWRz', host: 'ca.example.com' },
      body: { key_backend_options: { pin: '4711', slot: 1 }, private_key: PEM_KEY, csr: 'PUBLIC CSR TEXT' },
      options: [{ keyEncryptionKey: 'kek-material-xyz' }, { so_pin: '4711' }],
      note: `Authorization: Basic c2VjcmV0LWNyZWRz`,
    });
    const text = out.lines.join('');
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    const [line] = out.parsed();
    expect(line).toMatchObject({
      password: '[redacted]',
      headers: { Authorization: '[redacted]', host: 'ca.example.com' },
      body: { key_backend_options: '[redacted]', private_key: '[redacted]', csr: 'PUBLIC CSR TEXT' },
      err: { type: 'Error', message: 'could not load [redacted] with Bearer [redacted]', cause: { importPassword: '[redacted]' } },
    });
  });
});

describe('router options logger and logError', () => {
  it('errors go to `logger.error` (redacted) unless the deprecated `logError` is given; a non-logger is refused', () => {
    const out = capture();
    const resolved = resolveOptions({ logger: jsonLinesLogger({ stream: out.stream }) });
    resolved.logError('express-ca-api: boom', new Error(`failed with ${PEM_KEY}`));
    expect(out.parsed()).toEqual([
      expect.objectContaining({
        level: 'error',
        msg: 'express-ca-api: boom',
        err: expect.objectContaining({ message: 'failed with [redacted]' }),
      }),
    ]);
    const calls: string[] = [];
    resolveOptions({ logger: jsonLinesLogger({ stream: out.stream }), logError: (m) => calls.push(m) }).logError('direct', null);
    expect(calls).toEqual(['direct']);
    expect(out.lines).toHaveLength(1);
    expect(() => resolveOptions({ logger: console as never })).toThrow(OptionsError);
    expect(resolveOptions({}).accessLog).toBe(false);
  });
});

describe('access log of the router', () => {
  const out = capture();
  let f: ApiFixture;
  beforeAll(async () => {
    f = await setupApi(undefined, {
      accessLog: true,
      logger: jsonLinesLogger({ stream: out.stream }),
      loginLimiter: loginAttemptLimiter({ maxFailuresPerUser: 3 }),
    });
  });
  afterAll(() => f?.close());

  it('one line per request: method, path without query, status, duration, user, address, protocol; no credentials', async () => {
    out.lines.length = 0;
    expect((await request(f.app).get(`${API}/ca/?limit=1&search=x`).set(f.auth('alice'))).status).toBe(200);
    expect((await request(f.app).get(`${API}/ca/`).set(authHeader('alice', 'wrong-password-123'))).status).toBe(401);
    await request(f.app).get('/not-ours/');
    const lines = out.parsed();
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'info',
        msg: 'request',
        method: 'GET',
        path: `${API}/ca/`,
        status: 200,
        user: 'alice',
        protocol: 'rest',
      }),
      expect.objectContaining({ method: 'GET', path: `${API}/ca/`, status: 401, user: null, protocol: 'rest' }),
    ]);
    expect(lines[0].duration_ms).toEqual(expect.any(Number));
    expect(String(lines[0].address)).toMatch(/127\.0\.0\.1|::1/);
    const text = out.lines.join('');
    for (const secret of [PASSWORD, 'wrong-password-123', f.auth('alice').Authorization.split(' ')[1], 'search=x']) {
      expect(text).not.toContain(secret);
    }
  });

  it('REST sign and revoke record the API user and the client address in the audit log', async () => {
    const sign = await request(f.app)
      .post(`${API}/ca/${f.ca.serial}/sign/`)
      .set(f.auth('alice'))
      .send({ csr: opensslCsr('EC', 'logged.example.com').csr, subject: [{ oid: 'CN', value: 'logged.example.com' }] });
    const done = await waitForOrder(f.app, f.ca.serial, sign.body.slug, f.auth('alice'));
    const revoke = await request(f.app).post(`${API}/ca/${f.ca.serial}/certs/${done.serial}/revoke/`).set(f.auth('alice')).send({});
    expect(revoke.status).toBe(200);
    const rows = await f.store.auditLog.auditRows({ caSerial: f.ca.serial, limit: 1000 });
    const issued = rows.find((r) => r.type === 'certificate.issued' && r.serial === done.serial)!;
    expect(JSON.parse(issued.actorText)).toEqual({
      type: 'api_user',
      id: expect.any(Number),
      name: 'alice',
      protocol: 'rest',
      address: expect.stringMatching(/127\.0\.0\.1|::1/),
    });
    const revoked = rows.find((r) => r.type === 'certificate.revoked' && r.serial === done.serial)!;
    expect(JSON.parse(revoked.actorText)).toEqual({
      type: 'api_user',
      id: expect.any(Number),
      name: 'alice',
      protocol: 'rest',
      address: expect.stringMatching(/127\.0\.0\.1|::1/),
    });
  });

  it('a login lockout is recorded once, when the failure that starts it happens (not a row change, chained all the same)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (
          await request(f.app)
            .get(`${API}/ca/`)
            .set(authHeader('mallory', `guess-${i}`))
        ).status,
      );
    expect(statuses).toEqual([401, 401, 401, 429]);
    const lockouts = (await f.store.auditLog.auditRows({ limit: 1000 })).filter((r) => r.type === 'login.locked_out');
    expect(lockouts).toHaveLength(1);
    expect(JSON.parse(lockouts[0].dataText)).toMatchObject({
      username: 'mallory',
      locked_out: ['username'],
      retry_after_seconds: expect.any(Number),
    });
    expect(JSON.parse(lockouts[0].actorText)).toMatchObject({
      type: 'anonymous',
      name: 'mallory',
      protocol: 'rest',
      address: expect.any(String),
    });
    expect(lockouts[0].dataText).not.toContain('guess-');
    expect((await verifyAuditChain(f.store.auditLog)).intact).toBe(true);
  });
});
