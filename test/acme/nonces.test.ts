/**
 * The knex store's `AcmeNonceStore` (lib/ports/acme.ts, RFC 8555 §6.5): a nonce is accepted once,
 * by whichever instance sees it first — on PostgreSQL also across two connection pools, as two
 * instances of a fleet are — and refused when unknown, malformed or expired.
 */
import { knexStore } from '../../adapters/store/knex';
import { randomBytes } from 'crypto';
import { mintNonce, sweepExpired } from '../../adapters/store/knex/acme-nonces';
import { TABLES } from '../../adapters/store/knex/tables';
import { hasAcmeNonces, type AcmeNonceStore, type Store } from '../../lib/ports';
import { describeOnPostgres, openSecondPool, openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';

const MINUTE = 60_000;

describe.each(testDatabaseTargets())('ACME nonces on $name', (target) => {
  let db: TestDatabase;
  let store: Store & AcmeNonceStore;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    if (!hasAcmeNonces(db.store)) throw new Error('the knex store keeps ACME nonces');
    store = db.store;
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.truncate();
  });

  it('mints 43 base64url characters, each nonce new', async () => {
    const nonces = await Promise.all(Array.from({ length: 50 }, () => store.createAcmeNonce(MINUTE)));
    for (const n of nonces) expect(n).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(nonces).size).toBe(50);
  });

  it('accepts a nonce once', async () => {
    const nonce = await store.createAcmeNonce(MINUTE);
    expect(await store.consumeAcmeNonce(nonce)).toBe(true);
    expect(await store.consumeAcmeNonce(nonce)).toBe(false);
  });

  it('refuses what it never minted, and malformed input', async () => {
    expect(await store.consumeAcmeNonce('A'.repeat(43))).toBe(false);
    for (const bad of ['', 'short', `${'A'.repeat(42)}=`, `${'A'.repeat(43)}x`, "'; DROP TABLE x; --", 42 as unknown as string]) {
      expect(await store.consumeAcmeNonce(bad)).toBe(false);
    }
  });

  it('refuses an expired nonce; a used nonce is kept until it expires, then swept', async () => {
    const old = await store.createAcmeNonce(1);
    const live = await store.createAcmeNonce(MINUTE);
    // Lives long enough to be used on a busy machine (two suites share two cores), short enough to wait out.
    const brief = await store.createAcmeNonce(1500);
    await new Promise((r) => setTimeout(r, 20));
    expect(await store.consumeAcmeNonce(old)).toBe(false);
    expect(await store.consumeAcmeNonce(live)).toBe(true);
    expect(await store.consumeAcmeNonce(brief)).toBe(true);
    expect(((await db.knex(TABLES.acmeNonces).pluck('nonce')) as string[]).sort()).toEqual([brief, live].sort());
    await new Promise((r) => setTimeout(r, 1500));
    expect(await sweepExpired(db.knex)).toBe(1);
    expect(await db.knex(TABLES.acmeNonces).pluck('nonce')).toEqual([live]);
    // Swept, but still refused: it has expired.
    expect(await store.consumeAcmeNonce(brief)).toBe(false);
    expect(await store.consumeAcmeNonce(live)).toBe(false);
  });

  it('refuses a nonce whose MAC is not this database’s, and another spelling of a used nonce', async () => {
    const nonce = await store.createAcmeNonce(MINUTE);
    const raw = Buffer.from(nonce, 'base64url');
    raw[31] ^= 1; // the MAC
    expect(await store.consumeAcmeNonce(raw.toString('base64url'))).toBe(false);
    raw[31] ^= 1;
    raw[0] ^= 1; // the expiry, under the MAC
    expect(await store.consumeAcmeNonce(raw.toString('base64url'))).toBe(false);
    expect(await store.consumeAcmeNonce(mintNonce(randomBytes(32), MINUTE))).toBe(false);
    expect(await store.consumeAcmeNonce(nonce)).toBe(true);
    // The last character carries 4 bits of the last byte and 2 unused ones: the same bytes, another string.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(nonce[42]);
    const variant = nonce.slice(0, 42) + alphabet[last ^ 1];
    expect(Buffer.from(variant, 'base64url').equals(Buffer.from(nonce, 'base64url'))).toBe(true);
    expect(await store.consumeAcmeNonce(variant)).toBe(false);
  });

  it('twenty concurrent uses of one nonce: exactly one is accepted', async () => {
    const nonce = await store.createAcmeNonce(MINUTE);
    const results = await Promise.all(Array.from({ length: 20 }, () => store.consumeAcmeNonce(nonce)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('concurrent requests share statements (group commit): each of fifty nonces accepted once, malformed and unknown ones refused', async () => {
    const nonces = await Promise.all(Array.from({ length: 50 }, () => store.createAcmeNonce(MINUTE)));
    const unknown = 'B'.repeat(43);
    const asked = [...nonces, ...nonces.slice(0, 10), unknown, 'short'];
    const results = await Promise.all(asked.map((n) => store.consumeAcmeNonce(n)));
    expect(results.slice(0, 50).every(Boolean)).toBe(true);
    expect(results.slice(50)).toEqual(Array.from({ length: 12 }, () => false));
    // Kept as used until they expire.
    expect(Number((await db.knex(TABLES.acmeNonces).count({ n: '*' }).first())?.n)).toBe(50);
  });

  it('minting needs no statement; the uses of concurrent requests share one, each caller getting its own result', async () => {
    const [a, b] = await Promise.all([store.createAcmeNonce(MINUTE), store.createAcmeNonce(MINUTE)]);
    const statements: string[] = [];
    const onQuery = (q: { sql: string }) => statements.push(q.sql);
    db.knex.on('query', onQuery);
    let results: (string | boolean)[];
    try {
      results = await Promise.all([
        store.consumeAcmeNonce(a),
        store.createAcmeNonce(MINUTE),
        store.consumeAcmeNonce(a),
        store.consumeAcmeNonce('short'),
        store.createAcmeNonce(MINUTE),
        store.consumeAcmeNonce(b),
      ]);
    } finally {
      db.knex.off('query', onQuery);
    }
    // One INSERT of the used nonces (the sweep of expired ones, every 256 uses, may follow: not counted).
    expect(statements.filter((sql) => !/expires <= /.test(sql))).toHaveLength(1);
    expect([results[0], results[2], results[3], results[5]]).toEqual([true, false, false, true]);
    const minted = [results[1], results[4]] as string[];
    for (const n of minted) expect(n).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await Promise.all(minted.map((n) => store.consumeAcmeNonce(n)))).toEqual([true, true]);
  });

  it('refuses a ttl that is not a positive number', async () => {
    await expect(store.createAcmeNonce(0)).rejects.toThrow(RangeError);
    await expect(store.createAcmeNonce(Number.NaN)).rejects.toThrow(RangeError);
  });
});

// Two pools share a database only on PostgreSQL (PGlite is one process's): without it, skipped
// locally and failed in CI.
describeOnPostgres('ACME nonces on postgresql, two instances', (target) => {
  let db: TestDatabase;
  let store: Store & AcmeNonceStore;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    if (!hasAcmeNonces(db.store)) throw new Error('the knex store keeps ACME nonces');
    store = db.store;
  });
  afterAll(async () => {
    await db?.close();
  });

  it('two instances (two pools): minted by one, accepted once by the other', async () => {
    const second = openSecondPool(target.url, db.knex);
    try {
      const other = knexStore(second);
      if (!hasAcmeNonces(other)) throw new Error('the knex store keeps ACME nonces');
      const fromA = await store.createAcmeNonce(MINUTE);
      const fromB = await other.createAcmeNonce(MINUTE);
      expect(await other.consumeAcmeNonce(fromA)).toBe(true);
      expect(await store.consumeAcmeNonce(fromA)).toBe(false);
      expect(await other.consumeAcmeNonce(fromA)).toBe(false);
      const raced = await Promise.all([store.consumeAcmeNonce(fromB), other.consumeAcmeNonce(fromB), store.consumeAcmeNonce(fromB)]);
      expect(raced.filter(Boolean)).toHaveLength(1);
    } finally {
      await second.destroy();
    }
  });
});
