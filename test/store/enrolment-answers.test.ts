/**
 * The knex store's `enrolment.insertAnsweringCertificate` (adapters/store/knex/enrolment-challenges.ts),
 * on every test database target: a SCEP transaction's certificate and the record of its answer in one
 * statement, both or neither (then the certificate's event, in the same transaction).
 */
import type { EnrolmentStore, EnrolmentTransactionKey, Store } from '../../lib/ports';
import { openTestDatabase, statementsOf, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa, newCertificate } from './records';

/** The statements of one write with its events: the change, then the events INSERT, in one transaction. */
function expectChangeThenEvents(statements: string[], change: RegExp): void {
  expect(statements).toHaveLength(4);
  expect(statements[0]).toMatch(/^begin/i);
  expect(statements[1]).toMatch(change);
  expect(statements[2]).toMatch(/insert into "ca_api_events"/i);
  expect(statements[3]).toMatch(/^commit/i);
}

describe.each(testDatabaseTargets())('insertAnsweringCertificate on $name', (target) => {
  let db: TestDatabase;
  let store: Store & { enrolment: EnrolmentStore };
  const key = (transactionId: string): EnrolmentTransactionKey => ({
    protocol: 'scep',
    label: '',
    transactionId,
    publicKeySha256: 'ab'.repeat(32),
  });

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

  it('stores the certificate and its answer in one statement; the store reads back both', async () => {
    const ca = await store.insertCa(newCa());
    const certificate = newCertificate(ca.id);
    const { value: stored, statements } = await statementsOf(db, () => store.enrolment.insertAnsweringCertificate(key('t-1'), certificate));
    expectChangeThenEvents(statements, /insert into "ca_api_certificates"/);
    expect(stored?.serial).toBe(certificate.serial);
    const read = await store.findCertificate(ca.id, certificate.serial);
    expect(read?.id).toBe(stored?.id);
    expect(JSON.parse(JSON.stringify(stored))).toEqual(JSON.parse(JSON.stringify(read)));
    expect(await store.enrolment.findEnrolmentTransaction(key('t-1'))).toEqual({ caId: ca.id, certificateSerial: certificate.serial });
  });

  it('a transaction answered already stores nothing: null, and the first answer stands', async () => {
    const ca = await store.insertCa(newCa());
    const first = newCertificate(ca.id);
    const second = newCertificate(ca.id);
    expect(await store.enrolment.insertAnsweringCertificate(key('t-2'), first)).not.toBeNull();
    expect(await store.enrolment.insertAnsweringCertificate(key('t-2'), second)).toBeNull();
    expect(await store.findCertificate(ca.id, second.serial)).toBeNull();
    expect(await store.enrolment.findEnrolmentTransaction(key('t-2'))).toEqual({ caId: ca.id, certificateSerial: first.serial });
  });

  it('concurrent answers of different transactions share one statement; each is stored', async () => {
    const ca = await store.insertCa(newCa());
    const certificates = Array.from({ length: 4 }, () => newCertificate(ca.id));
    const { value: stored, statements } = await statementsOf(db, () =>
      Promise.all(certificates.map((c, i) => store.enrolment.insertAnsweringCertificate(key(`g-${i}`), c))),
    );
    expectChangeThenEvents(statements, /insert into "ca_api_certificates"/);
    expect(stored.map((s) => s?.serial)).toEqual(certificates.map((c) => c.serial));
    for (const [i, c] of certificates.entries()) {
      expect(await store.enrolment.findEnrolmentTransaction(key(`g-${i}`))).toEqual({ caId: ca.id, certificateSerial: c.serial });
    }
  });

  it('racing repetitions, in one statement or several: exactly one is stored', async () => {
    const ca = await store.insertCa(newCa());
    const certificates = Array.from({ length: 4 }, () => newCertificate(ca.id));
    const outcomes = await Promise.all(certificates.map((c) => store.enrolment.insertAnsweringCertificate(key('t-3'), c)));
    const later = await Promise.all([
      store.enrolment.insertAnsweringCertificate(key('t-3'), newCertificate(ca.id)),
      store.transaction((tx) => (tx as typeof store).enrolment.insertAnsweringCertificate(key('t-3'), newCertificate(ca.id))),
    ]);
    expect([...outcomes, ...later].filter((o) => o !== null)).toHaveLength(1);
    const stored = await store.listCertificates({ caId: ca.id, includeExpired: true, includeRevoked: true });
    expect(stored.map((c) => c.serial)).toEqual([(await store.enrolment.findEnrolmentTransaction(key('t-3')))?.certificateSerial]);
  });
});
