/**
 * The default authenticator and permission checker on the real knex store (PGlite in memory):
 * D6 (unknown users cost a bcrypt compare too), the credential cache, and its invalidation when a
 * user's password or permissions change.
 */
import * as bcrypt from 'bcryptjs';
import request from 'supertest';
import { threadId } from 'worker_threads';
import { bcryptCost, DUMMY_BCRYPT_HASH, storeAuthenticator, type StoreAuthenticator } from '../../adapters/auth/store-authenticator';
import { storePermissionChecker } from '../../adapters/auth/store-permissions';
import { ROUTES } from '../../lib/api/routes';
import type { UserRecord } from '../../lib/ports';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { authHeader, buildApp, notImplementedHandler } from '../helpers/http';

let db: TestDatabase;
let auth: StoreAuthenticator;
let clock = 1_000_000;
let alice: UserRecord;

beforeAll(async () => {
  db = await openTestDatabase(testDatabaseTargets()[0]);
  alice = await db.store.createUser('alice', bcrypt.hashSync('alice-pw', 4), ['view_certificate']);
  auth = storeAuthenticator(db.store, { poolOptions: { size: 1 }, cache: { ttlMs: 60_000, now: () => clock } });
});

afterAll(async () => {
  await auth?.close();
  await db?.close();
});

const compares = (): number => auth.pool.stats().compares;

describe('storeAuthenticator', () => {
  test('right password → the user; wrong password → null', async () => {
    await expect(auth.authenticate('alice', 'alice-pw')).resolves.toEqual({ id: alice.id, username: 'alice' });
    auth.invalidate('alice');
    await expect(auth.authenticate('alice', 'wrong')).resolves.toBeNull();
    await expect(auth.authenticate('Alice', 'alice-pw')).resolves.toBeNull(); // usernames are case-sensitive
  });

  test("D6: an unknown user costs a bcrypt compare in the pool, against a hash of the users' cost", async () => {
    const spy = jest.spyOn(auth.pool, 'compare');
    try {
      const before = compares();
      await expect(auth.authenticate('nobody', 'whatever')).resolves.toBeNull();
      await expect(auth.authenticate('nobody', 'whatever')).resolves.toBeNull(); // failures are never cached
      expect(compares() - before).toBe(2);
      // alice's hash (cost 4) was read by the test before: the dummy has her cost, not a fixed 10.
      const dummy = spy.mock.calls.at(-1)?.[1] as string;
      expect(dummy).not.toBe(alice.passwordHash);
      expect(bcrypt.getRounds(dummy)).toBe(4);
    } finally {
      spy.mockRestore();
    }
  });

  test('D6: before any user was read, and for a store of cost-10 hashes, the dummy has cost 10', async () => {
    const fresh = storeAuthenticator(db.store, { pool: auth.pool });
    const spy = jest.spyOn(auth.pool, 'compare');
    try {
      await expect(fresh.authenticate('nobody', 'whatever')).resolves.toBeNull();
      expect(spy.mock.calls.at(-1)?.[1]).toBe(DUMMY_BCRYPT_HASH);
      expect(bcrypt.getRounds(DUMMY_BCRYPT_HASH)).toBe(10);
      expect(bcryptCost(DUMMY_BCRYPT_HASH)).toBe(10);
      expect(bcryptCost('$2y$12$' + 'x'.repeat(53))).toBe(12);
      expect(bcryptCost('plain')).toBeUndefined();
    } finally {
      spy.mockRestore();
      await fresh.close();
    }
  });

  test('compares run on a worker thread, not on the event loop thread', async () => {
    auth.invalidate('alice');
    await auth.authenticate('alice', 'alice-pw');
    const threads = Object.keys(auth.pool.stats().tasksByThread).map(Number);
    expect(threads.length).toBeGreaterThan(0);
    expect(threads).not.toContain(threadId);
  });

  test('a cache hit skips bcrypt; another password does not hit', async () => {
    auth.invalidate('alice');
    await auth.authenticate('alice', 'alice-pw');
    const before = compares();
    await expect(auth.authenticate('alice', 'alice-pw')).resolves.toEqual({ id: alice.id, username: 'alice' });
    expect(compares()).toBe(before);
    await expect(auth.authenticate('alice', 'alice-pw ')).resolves.toBeNull();
    expect(compares()).toBe(before + 1);
  });

  test('concurrent requests with the same credentials share one compare (no stampede on a cold cache)', async () => {
    auth.invalidate('alice');
    const before = compares();
    const results = await Promise.all(Array.from({ length: 16 }, () => auth.authenticate('alice', 'alice-pw')));
    expect(results).toEqual(Array.from({ length: 16 }, () => ({ id: alice.id, username: 'alice' })));
    expect(compares()).toBe(before + 1);
  });

  test('only identical credentials share: another password, another user, and a later retry each compare', async () => {
    auth.invalidate('alice');
    const before = compares();
    const [right, wrong, nobody1, nobody2] = await Promise.all([
      auth.authenticate('alice', 'alice-pw'),
      auth.authenticate('alice', 'not-it'),
      auth.authenticate('nobody', 'alice-pw'),
      auth.authenticate('nobody', 'alice-pw'),
    ]);
    expect(right).toEqual({ id: alice.id, username: 'alice' });
    expect([wrong, nobody1, nobody2]).toEqual([null, null, null]);
    expect(compares()).toBe(before + 3); // alice right, alice wrong, nobody (shared by the two)
    await expect(auth.authenticate('alice', 'not-it')).resolves.toBeNull(); // a failure is not kept
    expect(compares()).toBe(before + 4);
  });

  test('entries expire after the TTL', async () => {
    await auth.authenticate('alice', 'alice-pw');
    const before = compares();
    clock += 60_001;
    await auth.authenticate('alice', 'alice-pw');
    expect(compares()).toBe(before + 1);
  });

  test('a password change invalidates the cached credentials at once', async () => {
    const bob = await db.store.createUser('bob', bcrypt.hashSync('old-pw', 4), []);
    await expect(auth.authenticate('bob', 'old-pw')).resolves.not.toBeNull();
    await db.store.updateUser(bob.id, { passwordHash: bcrypt.hashSync('new-pw', 4) });
    await expect(auth.authenticate('bob', 'old-pw')).resolves.toBeNull();
    await expect(auth.authenticate('bob', 'new-pw')).resolves.not.toBeNull();
  });

  test('a permission change drops the cache entry, and the checker sees the new permissions', async () => {
    const carol = await db.store.createUser('carol', bcrypt.hashSync('carol-pw', 4), ['view_certificate']);
    const checker = storePermissionChecker(db.store);
    const user = await auth.authenticate('carol', 'carol-pw');
    expect(user).not.toBeNull();
    await expect(checker.hasPermission(user!, 'view_certificate')).resolves.toBe(true);
    await expect(checker.hasPermission(user!, 'sign_certificate')).resolves.toBe(false);
    await db.store.updateUser(carol.id, { permissions: ['sign_certificate'] });
    const before = compares();
    await auth.authenticate('carol', 'carol-pw');
    expect(compares()).toBe(before + 1);
    await expect(checker.hasPermission(user!, 'view_certificate')).resolves.toBe(false);
    await expect(checker.hasPermission(user!, 'sign_certificate')).resolves.toBe(true);
  });

  test('an unreadable stored hash is a failed login, not an error', async () => {
    await db.store.createUser('dave', 'plaintext?', []);
    await expect(auth.authenticate('dave', 'plaintext?')).resolves.toBeNull();
  });
});

describe('through the router', () => {
  test("a client's second request does not pay bcrypt again", async () => {
    const t = buildApp(
      { enableRestApi: true, store: db.store, authenticator: auth },
      { routes: ROUTES.map((r) => ({ ...r, handler: notImplementedHandler })) },
    );
    try {
      const user = await db.store.createUser('erin', bcrypt.hashSync('erin-pw', 4), ['view_certificate']);
      const url = `/django_ca/api/ca/AB/certs/`;
      const before = compares();
      expect((await request(t.app).get(url).set(authHeader('erin', 'erin-pw'))).status).toBe(501);
      expect((await request(t.app).get(url).set(authHeader('erin', 'erin-pw'))).status).toBe(501);
      expect(compares()).toBe(before + 1);
      // The permission is re-read on every request, even for cached credentials.
      await db.store.updateUser(user.id, { permissions: [] });
      expect((await request(t.app).get(url).set(authHeader('erin', 'erin-pw'))).status).toBe(403);
      expect((await request(t.app).get(url).set(authHeader('erin', 'wrong'))).status).toBe(401);
    } finally {
      await t.close();
    }
  });
});
