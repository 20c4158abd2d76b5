/**
 * The user-row cache behind the default authenticator and permission checker (adapters/auth/
 * user-cache.ts), on the real knex store (PGlite in memory): cached rows spare the database, a change
 * made through the store in this process is seen at once (the store's change events), a change made
 * behind the store's back is seen after the TTL, and through the router a password or permission
 * change takes effect on the very next request.
 */
import * as bcrypt from 'bcryptjs';
import request from 'supertest';
import { UserCache } from '../../adapters/auth/user-cache';
import { TABLES } from '../../adapters/store/knex/tables';
import { ROUTES } from '../../lib/api/routes';
import type { Store } from '../../lib/ports';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { authHeader, buildApp, notImplementedHandler } from '../helpers/http';

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase(testDatabaseTargets()[0]);
});
afterAll(() => db?.close());

/** The store, with a count of the user reads that reach it. */
function counting(store: Store): { store: Store; reads: () => number } {
  let reads = 0;
  const wrapped = Object.create(store) as Store;
  wrapped.findUser = (username) => {
    reads++;
    return store.findUser(username);
  };
  wrapped.getUserById = (id) => {
    reads++;
    return store.getUserById(id);
  };
  return { store: wrapped, reads: () => reads };
}

test('the knex store announces user changes, after the commit', async () => {
  const seen: number[] = [];
  const off = db.store.onUserChanged((id) => seen.push(id));
  try {
    const user = await db.store.createUser('events', 'x', []);
    await db.store.updateUser(user.id, { permissions: ['view_certificate'] });
    expect(seen).toEqual([user.id, user.id]);
    // Inside a transaction: nothing until it commits; nothing at all when it rolls back.
    await db.store.transaction(async (tx) => {
      await tx.updateUser(user.id, { permissions: [] });
      expect(seen).toHaveLength(2);
    });
    expect(seen).toHaveLength(3);
    await expect(
      db.store.transaction(async (tx) => {
        await tx.updateUser(user.id, { permissions: ['sign_certificate'] });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(seen).toHaveLength(3);
    expect((await db.store.getUserById(user.id))?.permissions).toEqual([]);
  } finally {
    off();
  }
});

test('fresh rows come from memory; a change through the store drops them at once', async () => {
  const user = await db.store.createUser('cached', 'x', ['view_certificate']);
  const { store, reads } = counting(db.store);
  const cache = new UserCache(store, { ttlMs: 60_000 });
  try {
    expect((await cache.findUser('cached'))?.id).toBe(user.id);
    expect((await cache.getUserById(user.id))?.permissions).toEqual(['view_certificate']);
    expect(reads()).toBe(1);
    await db.store.updateUser(user.id, { permissions: ['sign_certificate'] });
    expect((await cache.getUserById(user.id))?.permissions).toEqual(['sign_certificate']);
    expect(reads()).toBe(2);
    // Unknown users are not cached: one created afterwards is found at once.
    expect(await cache.findUser('later')).toBeNull();
    await db.store.createUser('later', 'x', []);
    expect(await cache.findUser('later')).not.toBeNull();
  } finally {
    cache.close();
  }
});

test("a change behind the store's back is seen once the TTL has passed", async () => {
  const user = await db.store.createUser('sql-edited', 'x', ['view_certificate']);
  let clock = 1_000;
  const cache = new UserCache(db.store, { ttlMs: 2_000, now: () => clock });
  try {
    expect((await cache.getUserById(user.id))?.permissions).toEqual(['view_certificate']);
    await db.knex(TABLES.permissions).where({ user_id: user.id }).delete(); // another process, say
    clock += 1_999;
    expect((await cache.getUserById(user.id))?.permissions).toEqual(['view_certificate']);
    clock += 1;
    expect((await cache.getUserById(user.id))?.permissions).toEqual([]);
  } finally {
    cache.close();
  }
});

test('a read that raced with an invalidation is not kept', async () => {
  const user = await db.store.createUser('racer', 'x', ['view_certificate']);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const slow = Object.create(db.store) as Store;
  slow.getUserById = async (id) => {
    const row = await db.store.getUserById(id); // the old row...
    await gate; // ...arrives after the change was announced
    return row;
  };
  const cache = new UserCache(slow, { ttlMs: 60_000 });
  try {
    const pending = cache.getUserById(user.id);
    cache.invalidate(user.id);
    release();
    expect((await pending)?.permissions).toEqual(['view_certificate']);
    expect(cache.size).toBe(0);
  } finally {
    cache.close();
  }
});

test('through the router: password and permission changes take effect on the next request', async () => {
  const t = buildApp({ enableRestApi: true, store: db.store }, { routes: ROUTES.map((r) => ({ ...r, handler: notImplementedHandler })) });
  try {
    const user = await db.store.createUser('frank', bcrypt.hashSync('old-pw', 4), ['view_certificate']);
    const url = '/django_ca/api/ca/AB/certs/';
    expect((await request(t.app).get(url).set(authHeader('frank', 'old-pw'))).status).toBe(501);
    expect((await request(t.app).get(url).set(authHeader('frank', 'old-pw'))).status).toBe(501); // cached
    await db.store.updateUser(user.id, { permissions: [] });
    expect((await request(t.app).get(url).set(authHeader('frank', 'old-pw'))).status).toBe(403);
    await db.store.updateUser(user.id, { permissions: ['view_certificate'], passwordHash: bcrypt.hashSync('new-pw', 4) });
    expect((await request(t.app).get(url).set(authHeader('frank', 'old-pw'))).status).toBe(401);
    expect((await request(t.app).get(url).set(authHeader('frank', 'new-pw'))).status).toBe(501);
  } finally {
    await t.close();
  }
});
