/**
 * `appendEvents` (adapters/store/knex/event-writer.ts): the code's own way to write domain events,
 * in the caller's transaction, chained by the audit trigger like every other event.
 */
import { KnexAuditLog } from '../../adapters/store/knex/audit';
import { appendEvents } from '../../adapters/store/knex/event-writer';
import { eventsSince, latestEventId } from '../../adapters/store/knex/events';
import { verifyAuditChain } from '../../lib/audit/audit-chain';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa } from './records';

describe.each(testDatabaseTargets())('appendEvents on $name', (target) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    await db.truncate();
  });
  afterAll(async () => {
    await db?.close();
  });

  it('writes every event in order, in one statement, chained, naming the CA by id or serial', async () => {
    const ca = await db.store.insertCa(newCa());
    const before = await latestEventId(db.knex);
    const operator = { type: 'operator', name: 'ops', protocol: 'cli' };
    await db.knex.transaction((tx) =>
      appendEvents(tx, [
        { type: 'certificate.issued', actor: operator, caId: ca.id, serial: 'AA01', data: { n: 1 } },
        { type: 'certificate.revoked', actor: operator, caSerial: 'BB', serial: 'AA02', data: { n: 2 } },
        { type: 'user.created', actor: null, data: { n: 3 } },
      ]),
    );
    const events = await eventsSince(db.knex, before);
    expect(events.map((e) => [e.type, e.caSerial, e.serial, e.data])).toEqual([
      ['certificate.issued', ca.serial, 'AA01', { n: 1 }],
      ['certificate.revoked', 'BB', 'AA02', { n: 2 }],
      ['user.created', null, null, { n: 3 }],
    ]);
    expect(events[0].actor).toEqual(operator);
    expect(events[2].actor).toMatchObject({ type: 'database', protocol: 'sql' });
    expect(await verifyAuditChain(new KnexAuditLog(db.knex))).toMatchObject({ intact: true, records: 4 });
  });

  it('writes nothing when the transaction rolls back', async () => {
    const before = await latestEventId(db.knex);
    await expect(
      db.knex.transaction(async (tx) => {
        await appendEvents(tx, [{ type: 'user.created', actor: null, data: {} }]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await eventsSince(db.knex, before)).toEqual([]);
  });
});
