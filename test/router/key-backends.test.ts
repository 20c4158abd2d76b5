/**
 * Key backends that cannot open keys: the default backend without a key-encryption key stops the
 * router from being built (an `OptionsError` saying what to set, as the README's `app.mjs` would hit
 * it), and a backend that cannot open a CA's key at request time is an outage of that backend — a
 * 503 with `Retry-After`, as for an unreachable HSM (docs/operations/hostile-clients-and-outages.md "Outages") — never a 500.
 */
import { randomBytes } from 'crypto';
import request from 'supertest';
import { createCaApiRouter, createRevocationRouter, defaultKeyBackend, OptionsError } from '../../lib';
import { setupApi, type ApiFixture } from '../api/fixture';
import { buildApp, idleOrderRunner, memoryUserStore, type TestApp } from '../helpers/http';

/** What `fn` throws, with `CA_KEY_ENCRYPTION_KEY` unset in the process (where `defaultKeyBackend()` reads it). */
function thrownWithoutKek(fn: () => unknown): unknown {
  const saved = process.env.CA_KEY_ENCRYPTION_KEY;
  delete process.env.CA_KEY_ENCRYPTION_KEY;
  try {
    fn();
  } catch (e) {
    return e;
  } finally {
    if (saved !== undefined) process.env.CA_KEY_ENCRYPTION_KEY = saved;
  }
  throw new Error('expected it to throw');
}

describe('a default key backend without a key-encryption key', () => {
  const store = memoryUserStore();
  const HOW = /set CA_KEY_ENCRYPTION_KEY to 32 random bytes, base64-encoded \(generate one with: openssl rand -base64 32\)/i;

  test("createCaApiRouter with the README's keyBackends: { default: defaultKeyBackend() } → OptionsError", () => {
    const error = thrownWithoutKek(() =>
      createCaApiRouter({ enableRestApi: true, store, keyBackends: { default: defaultKeyBackend() }, orderRunner: idleOrderRunner() }),
    );
    expect(error).toBeInstanceOf(OptionsError);
    expect((error as Error).message).toMatch(/^createCaApiRouter: option `keyBackends`: 'default' cannot open any key: /);
    expect((error as Error).message).toMatch(HOW);
  });

  test('createRevocationRouter likewise', () => {
    const error = thrownWithoutKek(() => createRevocationRouter({ store, keyBackends: { default: defaultKeyBackend() } }));
    expect(error).toBeInstanceOf(OptionsError);
    expect((error as Error).message).toMatch(HOW);
  });

  test('with the key set, the same router is built', async () => {
    const router = createCaApiRouter({
      enableRestApi: true,
      store,
      keyBackends: { default: defaultKeyBackend({ keyEncryptionKey: randomBytes(32) }) },
      orderRunner: idleOrderRunner(),
    });
    await router.close();
  });
});

describe('a key backend that cannot open the CA key at request time', () => {
  let f: ApiFixture;
  let other: TestApp;
  const logged: string[] = [];

  beforeAll(async () => {
    f = await setupApi();
    // The same database, another key-encryption key: every CA key is stored under the fixture's.
    other = buildApp({
      enableRestApi: true,
      store: f.store,
      keyBackends: { default: defaultKeyBackend({ keyEncryptionKey: randomBytes(32) }) },
      logError: (message) => logged.push(message),
    });
  });

  afterAll(async () => {
    await other.close();
    await f.close();
  });

  test('a CRL is answered 503 with Retry-After and the reason, not 500', async () => {
    for (const path of [`/django_ca/crl/${f.ca.serial}/`, `/django_ca/crl/ca/${f.root.serial}/`]) {
      const res = await request(other.app).get(path);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body.detail).toMatch(/^The key-encryption key does not match the one this CA's key was encrypted with .* Retry later\.$/);
    }
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.every((m) => !/failed$/.test(m))).toBe(true); // not the 500's "… failed" line
    // The right key still signs it.
    expect((await request(f.app).get(`/django_ca/crl/${f.ca.serial}/`)).status).toBe(200);
  });
});
