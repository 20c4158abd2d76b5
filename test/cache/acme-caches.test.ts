/**
 * The ACME caches (lib/acme/cache/account-cache.ts, policy-cache.ts) on the real knex store:
 * an account or policy change through the store in this process is seen at once (the ACME store's
 * `onAcmeAccountChanged` / `onAcmePolicyChanged`); one made behind the store's back (another
 * instance, `ca-admin`) once the TTL has passed; an account not found is never kept.
 */
import { TABLES } from '../../adapters/store/knex/tables';
import { AcmeAccountCache } from '../../lib/acme/cache/account-cache';
import { AcmePolicyCache } from '../../lib/acme/cache/policy-cache';
import type { AcmeAccountRecord, AcmeStore, CaRecord } from '../../lib/ports';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa } from '../store/records';

let db: TestDatabase;
let acme: AcmeStore;
let ca: CaRecord;
let account: AcmeAccountRecord;

beforeAll(async () => {
  db = await openTestDatabase(testDatabaseTargets()[0]);
  acme = (db.store as unknown as { acme: AcmeStore }).acme;
  ca = await db.store.insertCa(newCa());
  ({ account } = await acme.createAccount({
    caId: ca.id,
    jwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' },
    thumbprint: 'cached-thumb',
    contact: [],
    termsOfServiceAgreed: true,
  }));
});
afterAll(() => db?.close());

/** The ACME store, counting the reads that reach it. */
function counting(): { store: AcmeStore; reads: () => number } {
  let reads = 0;
  const wrapped = Object.create(acme) as AcmeStore;
  wrapped.findAccount = (caId, slug) => {
    reads++;
    return acme.findAccount(caId, slug);
  };
  wrapped.policy = (caId) => {
    reads++;
    return acme.policy(caId);
  };
  return { store: wrapped, reads: () => reads };
}

test('accounts come from memory; an update, deactivation or key rollover through the store drops them', async () => {
  const { store, reads } = counting();
  const cache = new AcmeAccountCache(store, { ttlMs: 60_000 });
  try {
    expect((await cache.findAccount(ca.id, account.slug))?.contact).toEqual([]);
    expect((await cache.findAccount(ca.id, account.slug))?.id).toBe(account.id);
    expect(reads()).toBe(1);
    await acme.updateAccount(account.id, { contact: ['mailto:a@example.com'] });
    expect((await cache.findAccount(ca.id, account.slug))?.contact).toEqual(['mailto:a@example.com']);
    await acme.changeAccountKey(account.id, { kty: 'EC', crv: 'P-256', x: 'x2', y: 'y2' }, 'rolled-thumb');
    expect((await cache.findAccount(ca.id, account.slug))?.thumbprint).toBe('rolled-thumb');
    expect(reads()).toBe(3);
    // Unknown accounts are not kept: one made a moment later is found at once.
    expect(await cache.findAccount(ca.id, 'nosuchacct')).toBeNull();
    expect(await cache.findAccount(ca.id, 'nosuchacct')).toBeNull();
    expect(reads()).toBe(5);
  } finally {
    cache.close();
  }
});

test('an account changed behind the store is seen once the TTL has passed', async () => {
  let now = 1_000_000;
  const cache = new AcmeAccountCache(acme, { ttlMs: 2000, now: () => now });
  try {
    expect((await cache.findAccount(ca.id, account.slug))?.status).toBe('valid');
    await db.knex(TABLES.acmeAccounts).where({ id: account.id }).update({ status: 'revoked' });
    expect((await cache.findAccount(ca.id, account.slug))?.status).toBe('valid');
    now += 2001;
    expect((await cache.findAccount(ca.id, account.slug))?.status).toBe('revoked');
  } finally {
    await db.knex(TABLES.acmeAccounts).where({ id: account.id }).update({ status: 'valid' });
    cache.close();
  }
});

test('policies come from memory; setPolicy through the store drops them, a change behind it is seen after the TTL', async () => {
  const { store, reads } = counting();
  let now = 1_000_000;
  const cache = new AcmePolicyCache(store, { ttlMs: 2000, now: () => now });
  try {
    expect((await cache.policy(ca.id)).eabRequired).toBe(false);
    expect((await cache.policy(ca.id)).eabRequired).toBe(false);
    expect(reads()).toBe(1);
    await acme.setPolicy(ca.id, { eabRequired: true, deny: ['secret.example'] });
    expect(await cache.policy(ca.id)).toEqual({ eabRequired: true, allow: [], deny: ['secret.example'] });
    await db.knex(TABLES.acmePolicies).where({ ca_id: ca.id }).update({ eab_required: false });
    expect((await cache.policy(ca.id)).eabRequired).toBe(true);
    now += 2001;
    expect((await cache.policy(ca.id)).eabRequired).toBe(false);
  } finally {
    cache.close();
  }
});
