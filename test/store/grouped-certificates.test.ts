/**
 * The knex store's `insertCertificate` on the root store (adapters/store/knex/store.ts), on every test
 * database target: concurrent calls share one INSERT (docs/DESIGN.md "Orders", group commit) and one of their events, each
 * caller gets the record the store reads back, and a taken serial fails only its own caller.
 */
import { StoreConflictError, type Store } from '../../lib/ports';
import { openTestDatabase, statementsOf, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa, newCertificate } from './records';

describe.each(testDatabaseTargets())('insertCertificate on $name', (target) => {
  let db: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    store = db.store;
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.truncate();
  });

  it('concurrent calls share one INSERT, and their events another, in one transaction; each gets the record the store reads back', async () => {
    const ca = await store.insertCa(newCa());
    const certificates = Array.from({ length: 5 }, () => newCertificate(ca.id));
    const { value: records, statements } = await statementsOf(db, () => Promise.all(certificates.map((c) => store.insertCertificate(c))));
    // The events last, in the same transaction (adapters/store/knex/transaction-events.ts).
    expect(statements).toHaveLength(4);
    expect(statements[0]).toMatch(/^begin/i);
    expect(statements[1]).toMatch(/^insert into "ca_api_certificates"/i);
    expect(statements[2]).toMatch(/insert into "ca_api_events"/i);
    expect(statements[3]).toMatch(/^commit/i);
    expect(records.map((r) => r.serial)).toEqual(certificates.map((c) => c.serial));
    for (const record of records) {
      const read = await store.findCertificate(ca.id, record.serial);
      expect(JSON.parse(JSON.stringify(record))).toEqual(JSON.parse(JSON.stringify(read)));
    }
  });

  it('a serial taken already fails only the caller that brought it; the others are stored', async () => {
    const ca = await store.insertCa(newCa());
    const taken = await store.insertCertificate(newCertificate(ca.id));
    const fresh = [newCertificate(ca.id), newCertificate(ca.id)];
    const outcomes = await Promise.allSettled([
      store.insertCertificate(fresh[0]),
      store.insertCertificate({ ...newCertificate(ca.id), serial: taken.serial }),
      store.insertCertificate(fresh[1]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(StoreConflictError);
    for (const c of fresh) expect((await store.findCertificate(ca.id, c.serial))?.serial).toBe(c.serial);
    expect(await store.listCertificates({ caId: ca.id, includeExpired: true, includeRevoked: true })).toHaveLength(3);
  });

  it('inside a transaction it is the transaction’s own statement, rolled back with it', async () => {
    const ca = await store.insertCa(newCa());
    const certificate = newCertificate(ca.id);
    await expect(
      store.transaction(async (tx) => {
        await tx.insertCertificate(certificate);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await store.findCertificate(ca.id, certificate.serial)).toBeNull();
  });
});
