/**
 * Brute-force protection of Basic auth (`loginLimiter`, docs/operations/hostile-clients-and-outages.md "Brute-force protection"): failed
 * attempts are limited per username and per client address → 429 JSON with `Retry-After`, without the
 * password being checked; the limit lifts when the window ends; successful requests are never
 * counted. The shared (database) limiter is checked with two routers on one PostgreSQL database.
 */
import request from 'supertest';
import express from 'express';
import { databaseLoginAttemptLimiter, loginAttemptLimiter } from '../../lib';
import type { Authenticator } from '../../lib/ports';
import { storeAuthenticator } from '../../adapters/auth/store-authenticator';
import { API, PASSWORD, setupApi, type ApiFixture } from '../api/fixture';
import { authHeader, buildApp } from '../helpers/http';
import { describeOnPostgres, openTestDatabase } from '../helpers/database';

const LIST = `${API}/ca/`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The store's authenticator, counting the passwords it is asked to check. */
function countingAuthenticator(f: ApiFixture): Authenticator & { checked: number } {
  const real = storeAuthenticator(f.store);
  const counting = {
    checked: 0,
    authenticate(username: string, password: string) {
      counting.checked++;
      return real.authenticate(username, password);
    },
  };
  return counting;
}

let f: ApiFixture;
beforeAll(async () => {
  f = await setupApi();
});
afterAll(() => f.close());

/** An app with its own limiter; `trust proxy` so that tests can speak from several addresses. */
function limitedApp(limits: Parameters<typeof loginAttemptLimiter>[0], authenticator?: Authenticator) {
  const t = buildApp({
    enableRestApi: true,
    store: f.store,
    keyBackends: { default: f.keyBackend },
    orderRunner: { start: async () => {}, stop: async () => {}, notify: () => {} },
    loginLimiter: loginAttemptLimiter(limits),
    ...(authenticator ? { authenticator } : {}),
  });
  t.app.set('trust proxy', true);
  return t;
}

const from = (address: string) => ({ 'X-Forwarded-For': address });

test('per username: the limit engages with 429 and Retry-After, the password is not checked any more, and it lifts', async () => {
  const counting = countingAuthenticator(f);
  const t = limitedApp({ maxFailuresPerUser: 3, maxFailuresPerAddress: 100, windowSeconds: 2 }, counting);
  try {
    // Three wrong passwords from three addresses: 401 each.
    for (const address of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
      const res = await request(t.app).get(LIST).set(authHeader('alice', 'wrong')).set(from(address));
      expect(res.status).toBe(401);
    }
    expect(counting.checked).toBe(3);
    // The fourth, even with the right password and from a fresh address: 429, no password checked.
    const blocked = await request(t.app).get(LIST).set(f.auth('alice')).set(from('10.0.0.4'));
    expect(blocked.status).toBe(429);
    expect(blocked.headers['content-type']).toMatch(/^application\/json/);
    expect(blocked.body).toEqual({ detail: 'Too many failed login attempts. Retry later.' });
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    expect(counting.checked).toBe(3);
    // Another user is not affected.
    expect((await request(t.app).get(LIST).set(f.auth('bob')).set(from('10.0.0.4'))).status).toBe(200);
    // After the window: alice may try again, and the right password works.
    await sleep(retryAfter * 1000 + 200);
    expect((await request(t.app).get(LIST).set(f.auth('alice')).set(from('10.0.0.4'))).status).toBe(200);
  } finally {
    await t.close();
  }
});

test('per address: failures for many usernames from one address block that address only', async () => {
  const t = limitedApp({ maxFailuresPerUser: 100, maxFailuresPerAddress: 4, windowSeconds: 60 });
  try {
    for (let i = 0; i < 4; i++) {
      expect(
        (
          await request(t.app)
            .get(LIST)
            .set(authHeader(`guess${i}`, 'x'))
            .set(from('192.0.2.7'))
        ).status,
      ).toBe(401);
    }
    const blocked = await request(t.app).get(LIST).set(f.auth('alice')).set(from('192.0.2.7'));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // The same user from another address: not limited.
    expect((await request(t.app).get(LIST).set(f.auth('alice')).set(from('192.0.2.8'))).status).toBe(200);
  } finally {
    await t.close();
  }
});

test('a client with the right password is never limited by its own requests, and a success after failures resets the username', async () => {
  const t = limitedApp({ maxFailuresPerUser: 3, maxFailuresPerAddress: 1000, windowSeconds: 60 });
  try {
    for (let i = 0; i < 50; i++) expect((await request(t.app).get(LIST).set(f.auth('bob')).set(from('10.1.0.1'))).status).toBe(200);
    // Two typos, a success, two typos: never three failures in a row, so never limited.
    for (const password of ['typo', 'typo', PASSWORD, 'typo', 'typo', PASSWORD]) {
      const res = await request(t.app).get(LIST).set(authHeader('bob', password)).set(from('10.1.0.1'));
      expect(res.status).toBe(password === PASSWORD ? 200 : 401);
    }
  } finally {
    await t.close();
  }
});

test('on by default: the 11th wrong password for one username is a 429; loginLimiter: false turns it off', async () => {
  const defaults = buildApp({ enableRestApi: true, store: f.store, keyBackends: { default: f.keyBackend }, orderRunner: f.runner });
  const off = buildApp({
    enableRestApi: true,
    store: f.store,
    keyBackends: { default: f.keyBackend },
    orderRunner: f.runner,
    loginLimiter: false,
  });
  try {
    const statuses = async (app: express.Express) => {
      const out: number[] = [];
      for (let i = 0; i < 11; i++)
        out.push(
          (
            await request(app)
              .get(LIST)
              .set(authHeader('no_such_user', `p${i}`))
          ).status,
        );
      return out;
    };
    expect(await statuses(defaults.app)).toEqual([...Array(10).fill(401), 429]);
    expect(await statuses(off.app)).toEqual(Array(11).fill(401));
  } finally {
    await defaults.close();
    await off.close();
  }
});

test('limits are validated at construction', () => {
  expect(() => loginAttemptLimiter({ maxFailuresPerUser: 0 })).toThrow(/maxFailuresPerUser must be a positive integer/);
  expect(() => buildApp({ enableRestApi: true, store: f.store, loginLimiter: {} as never })).toThrow(/option `loginLimiter`/);
});

describeOnPostgres('databaseLoginAttemptLimiter (PostgreSQL)', (postgres) => {
  test('two routers on one database share the counts', async () => {
    const db = await openTestDatabase(postgres);
    const limits = { maxFailuresPerUser: 2, maxFailuresPerAddress: 100, windowSeconds: 60 };
    const username = `shared_${Date.now()}`;
    const make = async () =>
      buildApp({
        enableRestApi: true,
        store: f.store,
        keyBackends: { default: f.keyBackend },
        orderRunner: { start: async () => {}, stop: async () => {}, notify: () => {} },
        loginLimiter: await databaseLoginAttemptLimiter(db.knex, limits),
      });
    const [one, two] = [await make(), await make()];
    try {
      expect((await request(one.app).get(LIST).set(authHeader(username, 'a'))).status).toBe(401);
      expect((await request(two.app).get(LIST).set(authHeader(username, 'b'))).status).toBe(401);
      // Two failures, one on each instance: both now refuse.
      expect((await request(one.app).get(LIST).set(authHeader(username, 'c'))).status).toBe(429);
      expect((await request(two.app).get(LIST).set(authHeader(username, 'c'))).status).toBe(429);
    } finally {
      await one.close();
      await two.close();
      await db.close();
    }
  });
});
