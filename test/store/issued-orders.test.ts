/**
 * The knex store's `createIssuedOrder` (IssuedOrderStore, adapters/store/knex/issued-orders.ts), on
 * every test database target: order and certificate in one statement (then their events, in the same
 * transaction), concurrent calls grouped,
 * nothing written for a revoked or missing CA, a taken slug drawn again, one caller's bad row failing
 * only that caller.
 */
import * as slugs from '../../adapters/store/knex/slug';
import { TABLES } from '../../adapters/store/knex/tables';
import {
  hasIssuedOrders,
  isIntentTaken,
  StoreConflictError,
  type IntentTaken,
  type IssuedOrderStore,
  type NewIssuanceIntent,
  type Store,
} from '../../lib/ports';
import { openTestDatabase, statementsOf, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa, newCertificate, signRequest } from './records';

/** The statements of one group of issued orders: ONE, the certificates, the orders and their events (no transaction around it). */
function expectOneStatementWithEvents(statements: string[]): void {
  expect(statements).toHaveLength(1);
  expect(statements[0]).toMatch(/insert into "ca_api_certificates"[\s\S]*insert into "ca_api_orders"[\s\S]*insert into "ca_api_events"/i);
}

describe.each(testDatabaseTargets())('createIssuedOrder on $name', (target) => {
  let db: TestDatabase;
  let store: Store & IssuedOrderStore;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    if (!hasIssuedOrders(db.store)) throw new Error('the knex store writes issued orders');
    store = db.store;
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.truncate();
  });

  async function setup() {
    const ca = await store.insertCa(newCa());
    const alice = await store.createUser('alice', 'hash', []);
    return { ca, alice };
  }

  it('writes the order issued with its certificate; the store reads back the same order', async () => {
    const { ca, alice } = await setup();
    const certificate = newCertificate(ca.id);
    const request = signRequest();
    const { value: order, statements } = await statementsOf(db, () =>
      store.createIssuedOrder({ caId: ca.id, userId: alice.id, request, certificate }),
    );
    expectOneStatementWithEvents(statements);
    expect(order).toMatchObject({
      caId: ca.id,
      userId: alice.id,
      status: 'issued',
      certificateSerial: certificate.serial,
      error: null,
      leaseOwner: null,
      leaseExpires: null,
    });
    expect(order!.slug).toMatch(/^[a-zA-Z0-9]{12}$/);
    expect(await store.getOrder(order!.slug)).toEqual(order);
    const stored = await store.findCertificate(ca.id, certificate.serial);
    expect(stored?.id).toBe(order!.certificateId);
    expect(stored?.cn).toBe(certificate.cn);
    expect(stored?.certificate).toEqual(certificate.certificate);
  });

  it('concurrent calls share one statement; each gets its own order and certificate', async () => {
    const { ca, alice } = await setup();
    const certificates = Array.from({ length: 6 }, () => newCertificate(ca.id));
    const { value: orders, statements } = await statementsOf(db, () =>
      Promise.all(
        certificates.map((certificate) => store.createIssuedOrder({ caId: ca.id, userId: alice.id, request: signRequest(), certificate })),
      ),
    );
    expectOneStatementWithEvents(statements);
    expect(new Set(orders.map((o) => o!.slug)).size).toBe(6);
    for (const [i, order] of orders.entries()) {
      expect(order?.certificateSerial).toBe(certificates[i].serial);
      expect((await store.findCertificate(ca.id, certificates[i].serial))?.id).toBe(order?.certificateId);
    }
  });

  it('writes nothing for a revoked or missing CA (null), and the rest of its group as usual', async () => {
    const { ca, alice } = await setup();
    const revoked = await store.insertCa(newCa({ revoked: true, revokedDate: new Date(), revokedReason: 'key_compromise' }));
    const [good, onRevoked, onMissing] = await Promise.all([
      store.createIssuedOrder({ caId: ca.id, userId: alice.id, request: signRequest(), certificate: newCertificate(ca.id) }),
      store.createIssuedOrder({ caId: revoked.id, userId: alice.id, request: signRequest(), certificate: newCertificate(revoked.id) }),
      store.createIssuedOrder({ caId: 999_999, userId: alice.id, request: signRequest(), certificate: newCertificate(999_999) }),
    ]);
    expect(good?.status).toBe('issued');
    expect(onRevoked).toBeNull();
    expect(onMissing).toBeNull();
    expect(Number((await db.knex(TABLES.orders).count({ n: '*' }).first())?.n)).toBe(1);
    expect(Number((await db.knex(TABLES.certificates).count({ n: '*' }).first())?.n)).toBe(1);
  });

  it('a slug another order holds is drawn again', async () => {
    const { ca, alice } = await setup();
    const taken = await store.createOrder({ caId: ca.id, userId: alice.id, request: signRequest() });
    const real = slugs.randomSlug;
    const spy = jest.spyOn(slugs, 'randomSlug').mockImplementationOnce(() => taken.slug);
    try {
      const order = await store.createIssuedOrder({
        caId: ca.id,
        userId: alice.id,
        request: signRequest(),
        certificate: newCertificate(ca.id),
      });
      expect(spy).toHaveBeenCalledTimes(2);
      expect(order?.slug).not.toBe(taken.slug);
      expect(order?.status).toBe('issued');
      expect((await store.getOrder(taken.slug))?.status).toBe('pending'); // left as it was
    } finally {
      spy.mockRestore();
    }
    expect(slugs.randomSlug).toBe(real);
  });

  it('a certificate serial taken already fails that caller alone; nothing of it is written', async () => {
    const { ca, alice } = await setup();
    const existing = await store.insertCertificate(newCertificate(ca.id));
    const results = await Promise.allSettled([
      store.createIssuedOrder({ caId: ca.id, userId: alice.id, request: signRequest(), certificate: newCertificate(ca.id) }),
      store.createIssuedOrder({
        caId: ca.id,
        userId: alice.id,
        request: signRequest(),
        certificate: newCertificate(ca.id, { serial: existing.serial }),
      }),
      store.createIssuedOrder({ caId: ca.id, userId: alice.id, request: signRequest(), certificate: newCertificate(ca.id) }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(StoreConflictError);
    expect(Number((await db.knex(TABLES.orders).count({ n: '*' }).first())?.n)).toBe(2);
    expect(Number((await db.knex(TABLES.certificates).count({ n: '*' }).first())?.n)).toBe(3);
  });

  describe('intents recorded while orders are written (one queue, issuing-writes.ts)', () => {
    const intent = (caId: number, serial: string, answers: string | null = null): NewIssuanceIntent => ({
      caId,
      serial,
      door: 'rest',
      requester: null,
      answers,
      tbs: Buffer.from([0x30, 0x03, 0x02, 0x01, 0x07]),
    });
    const intentRow = (serial: string) => db.knex(TABLES.issuanceIntents).where({ serial }).first();

    it("ride in the orders' statement: one statement and one commit for both, each caller its own outcome", async () => {
      const { ca, alice } = await setup();
      const certificates = [newCertificate(ca.id), newCertificate(ca.id)];
      const { value, statements } = await statementsOf(db, () =>
        Promise.all([
          ...certificates.map((certificate) =>
            store.createIssuedOrder({ caId: ca.id, userId: alice.id, request: signRequest(), certificate }),
          ),
          store.recordIntent(intent(ca.id, 'A1')),
          store.recordIntent(intent(ca.id, 'A2')),
        ]),
      );
      expectOneStatementWithEvents(statements);
      expect(statements[0]).toMatch(/insert into "ca_api_issuance_intents"/i);
      const [first, second, a1, a2] = value;
      expect(first).toMatchObject({ status: 'issued', certificateSerial: certificates[0].serial });
      expect(second).toMatchObject({ status: 'issued', certificateSerial: certificates[1].serial });
      for (const [recorded, serial] of [
        [a1, 'A1'],
        [a2, 'A2'],
      ] as const) {
        expect(isIntentTaken(recorded as IntentTaken)).toBe(false);
        expect(recorded).toMatchObject({ caId: ca.id, serial, door: 'rest', certificateId: null, failed: null });
        const row = await intentRow(serial);
        expect(Number(row.id)).toBe((recorded as { id: number }).id);
        expect(row.certificate_id).toBeNull();
      }
    });

    it('an intent that answers something keeps its own statement (a conflict to resolve), beside the group', async () => {
      const { ca, alice } = await setup();
      const held = await store.recordIntent(intent(ca.id, 'B0', 'order:7'));
      const { value, statements } = await statementsOf(db, () =>
        Promise.all([
          store.createIssuedOrder({ caId: ca.id, userId: alice.id, request: signRequest(), certificate: newCertificate(ca.id) }),
          store.recordIntent(intent(ca.id, 'B1', 'order:7')),
          store.recordIntent(intent(ca.id, 'B2', 'order:8')),
        ]),
      );
      expect(statements.filter((s) => /insert into "ca_api_certificates"/i.test(s))).toHaveLength(1);
      expect(statements.filter((s) => /insert into "ca_api_issuance_intents"/i.test(s))).toHaveLength(1);
      expect(statements.find((s) => /insert into "ca_api_certificates"/i.test(s))).not.toMatch(/ca_api_issuance_intents/i);
      const [order, taken, own] = value;
      expect(order).toMatchObject({ status: 'issued' });
      expect((taken as IntentTaken).taken.id).toBe((held as { id: number }).id);
      expect(isIntentTaken(own as IntentTaken)).toBe(false);
      expect(await intentRow('B1')).toBeUndefined();
      expect((await intentRow('B2'))?.answers).toBe('order:8');
    });

    it('a group that fails (a serial taken) is written again one by one: the intents are recorded, only the bad order fails', async () => {
      const { ca, alice } = await setup();
      const existing = await store.insertCertificate(newCertificate(ca.id));
      const results = await Promise.allSettled([
        store.createIssuedOrder({
          caId: ca.id,
          userId: alice.id,
          request: signRequest(),
          certificate: newCertificate(ca.id, { serial: existing.serial }),
        }),
        store.recordIntent(intent(ca.id, 'C1')),
        store.createIssuedOrder({ caId: ca.id, userId: alice.id, request: signRequest(), certificate: newCertificate(ca.id) }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
      expect((results[0] as PromiseRejectedResult).reason).toBeInstanceOf(StoreConflictError);
      expect((await intentRow('C1'))?.certificate_id).toBeNull();
      expect(Number((await db.knex(TABLES.orders).count({ n: '*' }).first())?.n)).toBe(1);
    });
  });
});
