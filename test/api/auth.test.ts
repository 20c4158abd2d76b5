/**
 * Authentication and permissions on every endpoint (reference/api.md §4, §8 "common permission
 * tests"): 401 for a missing, malformed or wrong credential (with `WWW-Authenticate`, D5), 403 for
 * each permission withheld in turn — also when the CA does not exist (auth runs first). Plus D11
 * (everything under the API root is JSON, the rest falls through) and D12 (docs at both paths).
 * API answers are not cached (`Cache-Control: no-store`) nor sniffed (`X-Content-Type-Options`).
 */
import request from 'supertest';
import { ALL_PERMISSIONS, type Permission } from '../../lib/ports';
import { API, PASSWORD, setupApi, type ApiFixture } from './fixture';

let f: ApiFixture;
beforeAll(async () => {
  // Dozens of wrong credentials from one address, on purpose: the brute-force limit (tested in
  // test/hardening/login-limits.test.ts) would answer the later ones 429.
  f = await setupApi(undefined, { loginLimiter: false });
});
afterAll(() => f.close());

interface Endpoint {
  method: 'get' | 'put' | 'post';
  path: () => string;
  permission: Permission;
  body?: object;
}

const S = () => f.ca.serial;
const ENDPOINTS: Record<string, Endpoint> = {
  list_profiles: { method: 'get', path: () => '/profiles/', permission: 'sign_certificate' },
  view_profile: { method: 'get', path: () => '/profiles/webserver/', permission: 'sign_certificate' },
  list_cas: { method: 'get', path: () => '/ca/', permission: 'view_certificateauthority' },
  view_ca: { method: 'get', path: () => `/ca/${S()}/`, permission: 'view_certificateauthority' },
  update_ca: { method: 'put', path: () => `/ca/${S()}/`, permission: 'change_certificateauthority', body: {} },
  sign: { method: 'post', path: () => `/ca/${S()}/sign/`, permission: 'sign_certificate', body: {} },
  get_order: { method: 'get', path: () => `/ca/${S()}/orders/abc123/`, permission: 'sign_certificate' },
  list_certs: { method: 'get', path: () => `/ca/${S()}/certs/`, permission: 'view_certificate' },
  view_cert: { method: 'get', path: () => `/ca/${S()}/certs/ABC/`, permission: 'view_certificate' },
  resign: { method: 'post', path: () => `/ca/${S()}/certs/ABC/resign/`, permission: 'sign_certificate', body: {} },
  revoke: { method: 'post', path: () => `/ca/${S()}/certs/ABC/revoke/`, permission: 'revoke_certificate', body: {} },
};

function call(e: Endpoint, headers: Record<string, string>, path = e.path()) {
  let req = request(f.app)[e.method](`${API}${path}`);
  for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
  return e.body ? req.send(e.body) : req;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

describe.each(Object.entries(ENDPOINTS))('%s', (_name, endpoint) => {
  test.each([
    ['no Authorization header', {}],
    ['an empty header', { Authorization: '' }],
    ['another scheme', { Authorization: `Bearer ${b64(`alice:${PASSWORD}`)}` }],
    ['no colon', { Authorization: `Basic ${b64('alice')}` }],
    ['wrong password', { Authorization: `Basic ${b64('alice:wrong')}` }],
    ['unknown user', { Authorization: `Basic ${b64(`mallory:${PASSWORD}`)}` }],
  ])('401 with %s', async (_case, headers) => {
    const res = await call(endpoint, headers as Record<string, string>);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Unauthorized' });
    expect(res.headers['www-authenticate']).toMatch(/^Basic realm="/); // D5
  });

  test(`403 without ${endpoint.permission}, also for an unknown CA`, async () => {
    const user = f.auth(`no_${endpoint.permission}`);
    for (const path of [endpoint.path(), endpoint.path().replace(S(), 'ABCDEF')]) {
      const res = await call(endpoint, user, path);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Forbidden' });
    }
  });

  test('every other missing permission is irrelevant', async () => {
    for (const p of ALL_PERMISSIONS.filter((q) => q !== endpoint.permission)) {
      const res = await call(endpoint, f.auth(`no_${p}`));
      expect([401, 403]).not.toContain(res.status);
    }
  });

  test('answers, authenticated or not, are neither stored by caches nor sniffed', async () => {
    for (const headers of [f.auth('alice'), {}, f.auth(`no_${endpoint.permission}`)]) {
      const res = await call(endpoint, headers);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});

describe('D11: JSON everywhere under the API root, fall-through elsewhere', () => {
  test('unknown path and wrong method are JSON', async () => {
    const unknown = await request(f.app).get(`${API}/nothing/here/`).set(f.auth('alice'));
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/json/);
    const method = await request(f.app).delete(`${API}/ca/`).set(f.auth('alice'));
    expect(method.status).toBe(405);
    expect(method.headers['content-type']).toMatch(/^application\/json/);
    expect(method.headers.allow).toBe('GET');
  });

  test('paths outside the API root reach the host app', async () => {
    const res = await request(f.app).get('/elsewhere/');
    expect(res.status).toBe(299);
    expect(res.body).toEqual({ host: true, path: '/elsewhere/' });
  });
});

describe('D12: docs', () => {
  test.each(['docs', 'docs/'])('%s serves the docs page without credentials', async (p) => {
    const res = await request(f.app).get(`${API}/${p}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs)/);
  });

  test('the API root itself, the URL hosts print, answers a JSON index of the docs without credentials', async () => {
    const res = await request(f.app).get(`${API}/`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ openapi: `${API}/openapi.json`, docs: `${API}/docs/` });
    const post = await request(f.app).post(`${API}/`);
    expect([post.status, post.headers.allow]).toEqual([405, 'GET']);
  });

  test('openapi.json lists the eleven operations', async () => {
    const res = await request(f.app).get(`${API}/openapi.json`);
    expect(res.status).toBe(200);
    const ops = Object.values(res.body.paths as Record<string, Record<string, { operationId: string }>>).flatMap((p) =>
      Object.values(p).map((o) => o.operationId),
    );
    expect(ops).toHaveLength(11);
  });
});
