/**
 * The CA cache (lib/cache/ca-cache.ts) on the real knex store (PGlite in memory): a CA change
 * made through the store in this process is seen at once (the store's `onCaChanged`), also through
 * the router; one made behind the store's back is seen once the TTL has passed.
 */
import { randomBytes } from 'crypto';
import request from 'supertest';
import { defaultKeyBackend } from '../../adapters/keys';
import { TABLES } from '../../adapters/store/knex/tables';
import { CaCache } from '../../lib/cache/ca-cache';
import { initCa } from '../../lib/ca/authorities';
import type { CaRecord, Store } from '../../lib/ports';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { authHeader, buildApp, hashPassword } from '../helpers/http';

let db: TestDatabase;
let ca: CaRecord;
const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: randomBytes(32) }) };

beforeAll(async () => {
  db = await openTestDatabase(testDatabaseTargets()[0]);
  ca = await initCa({
    store: db.store,
    keyBackends,
    name: 'cached',
    subject: [{ oid: 'CN', value: 'Cached CA' }],
    keyType: 'EC',
    apiEnabled: true,
  });
});
afterAll(() => db?.close());

/** The store, counting CA reads that reach it. */
function counting(store: Store): { store: Store; reads: () => number } {
  let reads = 0;
  const wrapped = Object.create(store) as Store;
  wrapped.findCaBySerial = (serial) => {
    reads++;
    return store.findCaBySerial(serial);
  };
  wrapped.getCa = (id) => {
    reads++;
    return store.getCa(id);
  };
  wrapped.listCas = (filter) => {
    reads++;
    return store.listCas(filter);
  };
  return { store: wrapped, reads: () => reads };
}

test('fresh rows come from memory; a change through the store (even in a transaction) drops them', async () => {
  const { store, reads } = counting(db.store);
  const cache = new CaCache(store, { ttlMs: 60_000 });
  try {
    expect((await cache.findCaBySerial(ca.serial))?.id).toBe(ca.id);
    expect((await cache.getCa(ca.id))?.serial).toBe(ca.serial);
    expect(reads()).toBe(1);
    await db.store.updateCa(ca.id, { website: 'https://one.example.com' });
    expect((await cache.getCa(ca.id))?.website).toBe('https://one.example.com');
    expect(reads()).toBe(2);
    await db.store.transaction((tx) => tx.updateCa(ca.id, { website: 'https://two.example.com' }));
    expect((await cache.findCaBySerial(ca.serial))?.website).toBe('https://two.example.com');
    expect(await cache.findCaBySerial('ABCDEF')).toBeNull();
  } finally {
    cache.close();
  }
});

test("a change behind the store's back is seen once the TTL has passed", async () => {
  let clock = 5_000;
  const cache = new CaCache(db.store, { ttlMs: 2_000, now: () => clock });
  try {
    expect((await cache.findCaBySerial(ca.serial))?.enabled).toBe(true);
    await db.knex(TABLES.cas).where({ id: ca.id }).update({ enabled: false }); // another process, say
    clock += 1_999;
    expect((await cache.findCaBySerial(ca.serial))?.enabled).toBe(true);
    clock += 1;
    expect((await cache.findCaBySerial(ca.serial))?.enabled).toBe(false);
  } finally {
    await db.knex(TABLES.cas).where({ id: ca.id }).update({ enabled: true });
    cache.close();
  }
});

test('the list of CAs comes from memory; a change through the store drops it, one behind its back is seen after the TTL', async () => {
  let clock = 1_000;
  const { store, reads } = counting(db.store);
  const cache = new CaCache(store, { ttlMs: 2_000, now: () => clock });
  const named = async () => (await cache.listCas()).find((c) => c.id === ca.id);
  await db.store.updateCa(ca.id, { website: '' });
  try {
    expect((await named())?.website).toBe('');
    expect((await named())?.website).toBe('');
    expect(reads()).toBe(1);
    await db.store.transaction((tx) => tx.updateCa(ca.id, { website: 'https://list.example.com' }));
    expect((await named())?.website).toBe('https://list.example.com');
    expect(reads()).toBe(2);
    await db.knex(TABLES.cas).where({ id: ca.id }).update({ website: '' }); // another process, say
    clock += 1_999;
    expect((await named())?.website).toBe('https://list.example.com');
    clock += 1;
    expect((await named())?.website).toBe('');
    expect(reads()).toBe(3);
  } finally {
    await db.store.updateCa(ca.id, { website: '' });
    cache.close();
  }
});

test('through the router: disabling the API of a CA is effective on the next request', async () => {
  const t = buildApp({ enableRestApi: true, store: db.store, keyBackends });
  try {
    await db.store.createUser('viewer', hashPassword('pw'), ['view_certificateauthority', 'change_certificateauthority']);
    const url = `/django_ca/api/ca/${ca.serial}/`;
    expect((await request(t.app).get(url).set(authHeader('viewer', 'pw'))).status).toBe(200);
    expect((await request(t.app).get(url).set(authHeader('viewer', 'pw'))).status).toBe(200); // cached
    await db.store.updateCa(ca.id, { apiEnabled: false });
    expect((await request(t.app).get(url).set(authHeader('viewer', 'pw'))).status).toBe(404);
  } finally {
    await db.store.updateCa(ca.id, { apiEnabled: true });
    await t.close();
  }
});
