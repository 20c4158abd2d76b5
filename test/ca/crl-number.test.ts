/**
 * CRL numbers (lib/ca/crl-number.ts, the store's `nextCrlNumber`): never below the time in
 * milliseconds, always above the last one handed out — so a database restored from a backup still
 * numbers its next CRL above every CRL published before (docs/operations/backup-restore.md; the
 * whole story runs in test/operations/backup-drill.test.ts).
 */
import { crlNumberFloor } from '../../lib/ca/crl-number';
import type { RevocationStore, Store } from '../../lib/ports';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa } from '../store/records';

test('the floor is the time in milliseconds since 1970', () => {
  expect(crlNumberFloor(new Date('2026-12-06T05:00:00.123Z'))).toBe(1796533200123n);
  expect(crlNumberFloor(new Date(0))).toBe(1n);
  expect(crlNumberFloor(new Date(NaN))).toBe(1n);
});

describe.each(testDatabaseTargets())('nextCrlNumber on $name', (target) => {
  let db: TestDatabase;
  let store: Store & RevocationStore;
  beforeAll(async () => {
    db = await openTestDatabase(target);
    store = db.store;
  });
  afterAll(async () => db?.close());

  test('counts on from the last number, jumps up to a higher floor, never down to a lower one', async () => {
    const ca = await store.insertCa(newCa());
    expect(await store.nextCrlNumber(ca.id, 'user')).toBe(1n);
    expect(await store.nextCrlNumber(ca.id, 'user', 1796533200123n)).toBe(1796533200123n);
    // The same millisecond, or a clock set back: still one more than the last.
    expect(await store.nextCrlNumber(ca.id, 'user', 1796533200123n)).toBe(1796533200124n);
    expect(await store.nextCrlNumber(ca.id, 'user', 1000n)).toBe(1796533200125n);
    // Each scope counts on its own; the first number of a scope is the floor.
    expect(await store.nextCrlNumber(ca.id, 'ca', 1796533200000n)).toBe(1796533200000n);
  });

  test('a restored (older) counter: the next number is above every number handed out before', async () => {
    const ca = await store.insertCa(newCa());
    const published: bigint[] = [];
    for (let i = 0; i < 5; i++) published.push(await store.nextCrlNumber(ca.id, 'user', crlNumberFloor(new Date())));
    // What a backup taken after the first CRL holds.
    await db.knex('ca_api_crl_numbers').where({ ca_id: ca.id, scope: 'user' }).update({ last_number: published[0].toString() });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const next = await store.nextCrlNumber(ca.id, 'user', crlNumberFloor(new Date()));
    expect(next > published[published.length - 1]).toBe(true);
  });
});
