/**
 * Basic authentication: RFC 7617 parsing, and every way of not being authenticated ending in the
 * same 401 with a `WWW-Authenticate` challenge (D5).
 */
import request from 'supertest';
import { parseBasicAuthorization } from '../../lib/http/basic-auth';
import { ROUTES } from '../../lib/api/routes';
import { authHeader, buildApp, hashPassword, memoryUserStore, notImplementedHandler, type TestApp } from '../helpers/http';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

describe('parseBasicAuthorization (RFC 7617)', () => {
  test.each([
    ['Basic ' + b64('alice:pw'), { username: 'alice', password: 'pw' }],
    ['basic ' + b64('alice:pw'), { username: 'alice', password: 'pw' }],
    ['BASIC   ' + b64('alice:pw'), { username: 'alice', password: 'pw' }],
    ['Basic ' + b64('alice:a:b:c'), { username: 'alice', password: 'a:b:c' }], // first colon splits
    ['Basic ' + b64('alice:'), { username: 'alice', password: '' }],
    ['Basic ' + b64('jürgen:pässwörd'), { username: 'jürgen', password: 'pässwörd' }], // UTF-8
    ['Basic ' + b64('alice:%41').replace(/=+$/, ''), { username: 'alice', password: '%41' }], // no percent-decoding; padding optional
  ])('%s → %j', (header, expected) => {
    expect(parseBasicAuthorization(header)).toEqual(expected);
  });

  test.each([
    [undefined],
    [''],
    ['Basic'],
    ['Basic '],
    [b64('alice:pw')], // bare base64 without scheme (accepted upstream, not by RFC 7617)
    ['Bearer ' + b64('alice:pw')],
    ['Digest ' + b64('alice:pw')],
    ['Basic ' + b64('alice-no-colon')],
    ['Basic ' + b64('alice:pw') + ' extra'],
    ['Basic !!!!'],
    ['Basic ' + b64('alice:pw').slice(0, -1) + '=='], // bad padding
    ['Basic ' + Buffer.from([0x61, 0x3a, 0xff]).toString('base64')], // not UTF-8
    ['Basic ' + b64('alice:pw\n')], // control characters are forbidden
    ['Basic ' + b64('al\u0000ice:pw')],
  ])('%j → not credentials', (header) => {
    expect(parseBasicAuthorization(header)).toBeNull();
  });
});

describe('401 and 403 responses', () => {
  let t: TestApp;
  const url = '/django_ca/api/ca/';

  beforeAll(async () => {
    const store = memoryUserStore();
    await store.createUser('alice', hashPassword('right:pass'), ['view_certificateauthority']);
    await store.createUser('bob', hashPassword('bobpw'), ['sign_certificate']);
    t = buildApp({ enableRestApi: true, store }, { routes: ROUTES.map((r) => ({ ...r, handler: notImplementedHandler })) });
  });
  afterAll(() => t.close());

  test.each([
    ['no header', {}],
    ['wrong password', authHeader('alice', 'wrong')],
    ['unknown user', authHeader('mallory', 'right:pass')],
    ['password cut at the second colon', authHeader('alice', 'right')],
    ['bare base64', { Authorization: b64('alice:right:pass') }],
    ['other scheme', { Authorization: 'Bearer abc' }],
    ['garbage', { Authorization: 'Basic %%%' }],
    ['percent-encoded password', authHeader('alice', 'right%3Apass')],
  ])('%s → 401 with a Basic challenge', async (_name, headers) => {
    const res = await request(t.app)
      .get(url)
      .set(headers as Record<string, string>);
    expect(res.status).toBe(401);
    expect(res.text).toBe('{"detail":"Unauthorized"}');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['www-authenticate']).toBe('Basic realm="django-ca"');
  });

  test('right credentials reach the handler (a password with colons works)', async () => {
    const res = await request(t.app).get(url).set(authHeader('alice', 'right:pass'));
    expect(res.status).toBe(501);
  });

  test('a user without the permission → 403 without a challenge', async () => {
    const res = await request(t.app).get(url).set(authHeader('bob', 'bobpw'));
    expect(res.status).toBe(403);
    expect(res.text).toBe('{"detail":"Forbidden"}');
    expect(res.headers['www-authenticate']).toBeUndefined();
  });
});
