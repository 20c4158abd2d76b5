/**
 * The router's infrastructure: mounting, routing, method dispatch, the order in which errors win,
 * body handling and the JSON-only error surface. Handlers are stand-ins (an echo handler) because
 * the endpoints' logic is tested elsewhere.
 */
import request from 'supertest';
import express from 'express';
import { createCaApiRouter } from '../../lib';
import { X509Error } from '../../lib/x509/errors';
import { HttpError } from '../../lib/http/http-errors';
import { ROUTES } from '../../lib/api/routes';
import type { ApiHandler, RouteDefinition } from '../../lib/api/route-types';
import { ALL_PERMISSIONS } from '../../lib/ports';
import { TEST_KEK } from '../cli/helpers';
import {
  authHeader,
  buildApp,
  hashPassword,
  idleOrderRunner,
  memoryUserStore,
  notImplementedHandler,
  type MemoryUserStore,
  type TestApp,
} from '../helpers/http';

const echo: ApiHandler = async (ctx) => ({
  status: 200,
  body: { operation: 'echo', params: ctx.params, query: ctx.query, body: ctx.body, user: ctx.user.username, apiBase: ctx.apiBase },
});

const withHandler = (handler: ApiHandler): RouteDefinition[] => ROUTES.map((r) => ({ ...r, handler }));

let store: MemoryUserStore;
const opened: TestApp[] = [];
const ADMIN = authHeader('admin', 'secret');
const NOBODY = authHeader('viewer', 'viewer-pw'); // a user without permissions

function app(options: Parameters<typeof buildApp>[0] = {}, handler: ApiHandler = echo, mount?: string): TestApp['app'] {
  const t = buildApp({ enableRestApi: true, store, ...options }, { routes: withHandler(handler) }, mount);
  opened.push(t);
  return t.app;
}

beforeAll(async () => {
  store = memoryUserStore();
  await store.createUser('admin', hashPassword('secret'), [...ALL_PERMISSIONS]);
  await store.createUser('viewer', hashPassword('viewer-pw'), []);
});

afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

function expectJson(res: request.Response): void {
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
}

describe('mounting and the enable switch', () => {
  test('disabled (the default) passes everything to the host app', async () => {
    const t = buildApp({ store });
    opened.push(t);
    const res = await request(t.app).get('/django_ca/api/ca/').set(ADMIN);
    expect(res.status).toBe(299);
    expect(res.body).toEqual({ host: true, path: '/django_ca/api/ca/' });
  });

  test('CA_ENABLE_REST_API enables it when the option is absent', async () => {
    const t = buildApp({ store, env: { CA_ENABLE_REST_API: 'true', CA_KEY_ENCRYPTION_KEY: TEST_KEK } }, { routes: withHandler(echo) });
    opened.push(t);
    const res = await request(t.app).get('/django_ca/api/ca/').set(ADMIN);
    expect(res.status).toBe(200);
    expect(res.body.operation).toBe('echo');
  });

  test('paths outside the API root fall through to the host app', async () => {
    const a = app();
    for (const path of ['/', '/django_ca/', '/django_ca/apis', '/django_ca/admin/', '/api/ca/']) {
      const res = await request(a).get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 299 });
    }
  });

  test('the API root without its slash redirects to it (JSON, query kept), like every other route', async () => {
    const a = app({ enableRestApi: true });
    const res = await request(a).get('/django_ca/api?x=1');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/django_ca/api/?x=1');
    expect(res.body).toEqual({ detail: 'Moved Permanently' });
    const post = await request(a).post('/django_ca/api');
    expect(post.status).toBe(308);
  });

  test("urlPath '' mounts the API at /api/", async () => {
    const a = app({ urlPath: '' });
    const res = await request(a).get('/api/ca/').set(ADMIN);
    expect(res.status).toBe(200);
    expect(res.body.apiBase).toBe('/api/');
    expect((await request(a).get('/django_ca/api/ca/').set(ADMIN)).status).toBe(299);
  });

  test('a custom urlPath and a host mount path combine', async () => {
    const a = app({ urlPath: 'pki/v1/' }, echo, '/host');
    const res = await request(a).get('/host/pki/v1/api/ca/').set(ADMIN);
    expect(res.status).toBe(200);
    expect(res.body.apiBase).toBe('/host/pki/v1/api/');
  });
});

describe('routing and methods (D11: JSON everywhere under the API root)', () => {
  test('unknown paths are a JSON 404; the API root itself is a JSON index of the docs (docs/reference/differences.md D12)', async () => {
    const a = app();
    const root = await request(a).get('/django_ca/api/').set(ADMIN);
    expect({ status: root.status, body: root.body }).toEqual({
      status: 200,
      body: { openapi: '/django_ca/api/openapi.json', docs: '/django_ca/api/docs/' },
    });
    expectJson(root);
    for (const path of ['/django_ca/api/nothing/', '/django_ca/api/ca/XYZ/', '/django_ca/api/ca/AB/orders/a-b/']) {
      const res = await request(a).get(path).set(ADMIN);
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 404, body: { detail: 'Not Found' } });
      expectJson(res);
    }
  });

  test('a wrong method is a JSON 405 with Allow, before authentication', async () => {
    const a = app();
    const put = await request(a).put('/django_ca/api/ca/');
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET');
    expect(put.body).toEqual({ detail: 'Method Not Allowed' });
    expectJson(put);
    const del = await request(a).delete('/django_ca/api/ca/AB/');
    expect(del.status).toBe(405);
    expect(del.headers.allow.split(', ').sort()).toEqual(['GET', 'PUT']);
    expect((await request(a).head('/django_ca/api/ca/')).status).toBe(405);
    expect((await request(a).options('/django_ca/api/ca/')).status).toBe(405);
  });

  test('a missing trailing slash redirects to the route (301 for GET, 308 keeps a POST body)', async () => {
    const a = app();
    const get = await request(a).get('/django_ca/api/ca?expired=1');
    expect(get.status).toBe(301);
    expect(get.headers.location).toBe('/django_ca/api/ca/?expired=1');
    expectJson(get);
    const post = await request(a).post('/django_ca/api/ca/AB/sign');
    expect(post.status).toBe(308);
    expect(post.headers.location).toBe('/django_ca/api/ca/AB/sign/');
  });

  test('every route of the table is reachable with its method', async () => {
    const a = app();
    for (const route of ROUTES) {
      const path =
        '/django_ca/api' +
        route.path
          .replace('{serial}', 'AB')
          .replace('{certificate_serial}', 'CD')
          .replace('{slug}', 'abc123')
          .replace('{name}', 'webserver');
      const body = route.body?.schema === 'SignCertificate' ? { csr: 'x', subject: [] } : {};
      const req =
        route.method === 'GET'
          ? request(a).get(path)
          : route.method === 'PUT'
            ? request(a).put(path).send(body)
            : request(a).post(path).send(body);
      const res = await req.set(ADMIN);
      expect({ op: route.operation, status: res.status }).toEqual({ op: route.operation, status: 200 });
    }
  });

  test('placeholder handlers answer 501 JSON until the endpoints exist', async () => {
    const res = await request(app({}, notImplementedHandler)).get('/django_ca/api/profiles/').set(ADMIN);
    expect(res.status).toBe(501);
    expect(res.body).toEqual({ detail: 'Not implemented' });
  });
});

describe('path converters (api.md §2, D7)', () => {
  test('serials: case-insensitive, colons and leading zeros removed', async () => {
    const a = app();
    const res = await request(a).get('/django_ca/api/ca/00:4a:bC/certs/0000ff/').set(ADMIN);
    expect(res.status).toBe(200);
    expect(res.body.params).toEqual({ serial: '4ABC', certificate_serial: 'FF' });
    const zero = await request(a).get('/django_ca/api/ca/000/').set(ADMIN);
    expect(zero.body.params).toEqual({ serial: '0' });
  });

  test('slugs are alphanumeric, profile names are percent-decoded', async () => {
    const a = app();
    expect((await request(a).get('/django_ca/api/ca/AB/orders/Ab12/').set(ADMIN)).body.params).toEqual({ serial: 'AB', slug: 'Ab12' });
    expect((await request(a).get('/django_ca/api/ca/AB/orders/a_b/').set(ADMIN)).status).toBe(404);
    expect((await request(a).get('/django_ca/api/profiles/my%20profile/').set(ADMIN)).body.params).toEqual({ name: 'my profile' });
    expect((await request(a).get('/django_ca/api/profiles/%E0%A4%A/').set(ADMIN)).status).toBe(404);
  });

  test('non-hex serials do not match', async () => {
    const res = await request(app()).get('/django_ca/api/ca/XYZ/').set(ADMIN);
    expect(res.status).toBe(404);
  });
});

describe('which error wins (api.md §3)', () => {
  test('unauthenticated and invalid → 401, not 400/422', async () => {
    const a = app();
    const res = await request(a).post('/django_ca/api/ca/AB/sign/').set('Content-Type', 'application/json').send('{not json');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Unauthorized' });
  });

  test('authenticated without the permission → 403 even for invalid input', async () => {
    const res = await request(app()).post('/django_ca/api/ca/AB/sign/').set(NOBODY).send({ csr: 5 });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Forbidden' });
    expectJson(res);
  });

  test('an unauthenticated client cannot make the server read a large body (401 before 413)', async () => {
    const res = await request(app({ bodyLimit: 100 }))
      .post('/django_ca/api/ca/AB/sign/')
      .send({ csr: 'x'.repeat(1000) });
    expect(res.status).toBe(401);
  });

  test("the permission asked for is the route's, with the CA serial as scope", async () => {
    const asked: unknown[] = [];
    const a = app({
      permissions: {
        async hasPermission(user, permission, scope) {
          asked.push([user.username, permission, scope]);
          return true;
        },
      },
    });
    await request(a).post('/django_ca/api/ca/0a:bc/certs/CD/revoke/').set(ADMIN).send({});
    await request(a).get('/django_ca/api/profiles/').set(ADMIN);
    expect(asked).toEqual([
      ['admin', 'revoke_certificate', { caSerial: 'ABC' }],
      ['admin', 'sign_certificate', undefined],
    ]);
  });
});

describe('request bodies', () => {
  const sign = '/django_ca/api/ca/AB/sign/';
  const revoke = '/django_ca/api/ca/AB/certs/CD/revoke/';

  test('malformed JSON → 400 JSON', async () => {
    const res = await request(app()).post(sign).set(ADMIN).set('Content-Type', 'application/json').send('{"csr": ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Cannot parse request body: expected a JSON document.' });
    expectJson(res);
  });

  test('bytes that are not UTF-8 → 400', async () => {
    const res = await request(app())
      .post(revoke)
      .set(ADMIN)
      .set('Content-Type', 'application/octet-stream')
      .send(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Cannot parse request body: expected a JSON document.' });
  });

  test('Content-Type is ignored: JSON sent as text/plain is parsed', async () => {
    const res = await request(app()).post(revoke).set(ADMIN).set('Content-Type', 'text/plain').send('{"reason": "superseded"}');
    expect(res.status).toBe(200);
    expect(res.body.body).toEqual({ reason: 'superseded' });
  });

  test('a body over the limit → 413 JSON (declared length and streamed)', async () => {
    const a = app({ bodyLimit: 200 });
    const res = await request(a)
      .post(revoke)
      .set(ADMIN)
      .send({ reason: 'x'.repeat(500) });
    expect(res.status).toBe(413);
    expectJson(res);
    expect(res.body.detail).toMatch(/larger than 200 bytes/);
    const at = await request(a).post(revoke).set(ADMIN).send({ reason: 'superseded' });
    expect(at.status).toBe(200);
  });

  test('D15: a JSON body that is not an object → 422 model_type', async () => {
    const a = app();
    for (const body of ['[]', 'null', '"x"', '5']) {
      const res = await request(a).post(revoke).set(ADMIN).set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        {
          type: 'model_type',
          loc: ['body', 'revocation'],
          msg: 'Input should be a valid dictionary or instance of RevokeCertificateSchema',
          ctx: { class_name: 'RevokeCertificateSchema' },
        },
      ]);
    }
  });

  test('an empty body is a missing body', async () => {
    const res = await request(app()).put('/django_ca/api/ca/AB/').set(ADMIN);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ type: 'missing', loc: ['body', 'data'], msg: 'Field required' }]);
  });

  test('D16: a lone UTF-16 surrogate → 422 with its location', async () => {
    const res = await request(app()).post(revoke).set(ADMIN).set('Content-Type', 'application/json').send('{"reason": "\\ud800"}');
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'revocation', 'reason']);
    expect(res.body.detail[0].type).toBe('string_unicode');
    const key = await request(app())
      .post(sign)
      .set(ADMIN)
      .set('Content-Type', 'application/json')
      .send('{"csr": "x", "subject": [], "key_backend_options": {"\\udc00": 1}}');
    expect(key.status).toBe(422);
    expect(key.body.detail[0].loc).toEqual(['body', 'data', 'key_backend_options', '\ufffd'.replace('\ufffd', key.body.detail[0].loc[3])]);
    // A proper surrogate pair is fine.
    const pair = await request(app())
      .post(sign)
      .set(ADMIN)
      .set('Content-Type', 'application/json')
      .send('{"csr": "x", "subject": [{"oid": "CN", "value": "\\ud83d\\ude00"}]}');
    expect(pair.status).toBe(200);
    expect(pair.body.body.subject[0].value).toBe('😀');
  });

  test('query and body problems are reported together, in field order', async () => {
    const res = await request(app()).post(sign).set(ADMIN).send({ subject: 'CN=x', algorithm: 'MD5' });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'data', 'csr'],
      ['body', 'data', 'subject'],
      ['body', 'data', 'algorithm'],
    ]);
    expect(res.body.detail[0]).toEqual({ type: 'missing', loc: ['body', 'data', 'csr'], msg: 'Field required' });
  });

  test('422 items for a discriminated extension carry the tag in loc', async () => {
    const res = await request(app())
      .post(sign)
      .set(ADMIN)
      .send({
        csr: 'x',
        subject: [],
        extensions: [{ type: 'key_usage', value: ['unknown'] }, { value: [] }, { type: 'basic_constraints', value: {} }],
      });
    expect(res.status).toBe(422);
    const byLoc = Object.fromEntries(
      res.body.detail.map((d: { loc: unknown[]; type: string }) => [JSON.stringify(d.loc.slice(2)), d.type]),
    );
    expect(byLoc).toEqual({
      '["extensions",0,"key_usage","value",0]': 'literal_error',
      '["extensions",1]': 'union_tag_not_found',
      '["extensions",2]': 'union_tag_invalid',
    });
  });

  test('query parameters: lax booleans, last value wins, unknown ignored, bad values 422', async () => {
    const a = app();
    const ok = await request(a).get('/django_ca/api/ca/AB/certs/?expired=yes&revoked=0&revoked=ON&foo=bar&limit=5').set(ADMIN);
    expect(ok.status).toBe(200);
    expect(ok.body.query).toEqual({ autogenerated: false, expired: true, revoked: true, limit: 5 });
    const bad = await request(a).get('/django_ca/api/ca/?expired=maybe').set(ADMIN);
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([
      { type: 'bool_parsing', loc: ['query', 'expired'], msg: 'Input should be a valid boolean, unable to interpret input' },
    ]);
    const empty = await request(a).get('/django_ca/api/ca/?expired=').set(ADMIN);
    expect(empty.status).toBe(422);
  });

  test('a body parsed by the host app (express.json before the router) is used', async () => {
    const host = express();
    host.use(express.json());
    const router = createCaApiRouter(
      { enableRestApi: true, store, env: { CA_KEY_ENCRYPTION_KEY: TEST_KEK }, orderRunner: idleOrderRunner() },
      { routes: withHandler(echo) },
    );
    host.use(router);
    try {
      const res = await request(host).post(revoke).set(ADMIN).send({ reason: 'superseded' });
      expect(res.status).toBe(200);
      expect(res.body.body).toEqual({ reason: 'superseded' });
    } finally {
      await router.close();
    }
  });
});

describe('handler results and errors', () => {
  test('bigints are written as exact JSON integers', async () => {
    const a = app({}, async () => ({ status: 200, body: { n: 2n ** 70n, s: 'x' } }));
    const res = await request(a).get('/django_ca/api/ca/').set(ADMIN);
    expect(res.text).toBe('{"n":1180591620717411303424,"s":"x"}');
  });

  test('HttpError from a handler becomes its JSON response', async () => {
    const a = app({}, async () => {
      throw new HttpError(400, 'Unable to parse CSR.');
    });
    const res = await request(a).get('/django_ca/api/ca/').set(ADMIN);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Unable to parse CSR.' });
  });

  test('engine validation errors become 422 at the body parameter', async () => {
    const a = app({}, async () => {
      throw new X509Error('validation', 'x', [{ type: 'value_error', loc: ['subject', 0], msg: 'AUT: Must have exactly two characters' }]);
    });
    const res = await request(a).post('/django_ca/api/ca/AB/sign/').set(ADMIN).send({ csr: 'x', subject: [] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'data', 'subject', 0],
        msg: 'Value error, AUT: Must have exactly two characters',
        ctx: { error: 'AUT: Must have exactly two characters' },
      },
    ]);
  });

  test('an unexpected error is a JSON 500 without details, logged without credentials', async () => {
    const logged: unknown[][] = [];
    const a = app({ logError: (message, error) => logged.push([message, error]) }, async () => {
      throw new TypeError('boom at /secret/place');
    });
    const res = await request(a).get('/django_ca/api/ca/').set(ADMIN);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ detail: 'Internal Server Error' });
    expectJson(res);
    expect(res.text).not.toContain('boom');
    expect(logged).toHaveLength(1);
    expect(String(logged[0][0])).toContain('GET /django_ca/api/ca/');
    expect(JSON.stringify(logged[0][0])).not.toContain(ADMIN.Authorization.slice(6));
    expect((logged[0][1] as Error).message).toBe('boom at /secret/place');
  });
});
