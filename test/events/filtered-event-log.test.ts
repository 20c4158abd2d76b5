/**
 * The knex store's `FilteredEventLog` (lib/ports/events.ts): only events of the asked-for types leave
 * the database, in id order, and `scannedTo` says how far the read looked — to the newest event, to
 * the last one of a full page, or to the end of the window one read looks through.
 */
import { eventsOfTypesSince } from '../../adapters/store/knex/events';
import { hasEventLog, type EventLog, type FilteredEventLog, type Store } from '../../lib/ports';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa } from '../store/records';

describe.each(testDatabaseTargets())('FilteredEventLog on $name', (target) => {
  let db: TestDatabase;
  let store: Store & EventLog & FilteredEventLog;
  /** Ids of: ca.created, user.created ×3, ca.created, in that order. */
  let ids: number[];

  beforeAll(async () => {
    db = await openTestDatabase(target);
    if (!hasEventLog(db.store)) throw new Error('the knex store has these capabilities');
    store = db.store;
    await db.truncate();
    await store.insertCa(newCa({ name: 'First' }));
    for (const name of ['alice', 'bob', 'carol']) await store.createUser(name, 'hash', []);
    await store.insertCa(newCa({ name: 'Second' }));
    ids = (await store.eventsSince(0, 100)).map((e) => e.id);
    expect((await store.eventsSince(0, 100)).map((e) => e.type)).toEqual([
      'ca.created',
      'user.created',
      'user.created',
      'user.created',
      'ca.created',
    ]);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('returns the events of the asked-for types only, and looks up to the newest event', async () => {
    const read = await store.eventsOfTypesSince(0, ['ca.created']);
    expect(read.events.map((e) => [e.id, e.type, e.data.name])).toEqual([
      [ids[0], 'ca.created', 'First'],
      [ids[4], 'ca.created', 'Second'],
    ]);
    expect(read).toMatchObject({ scannedTo: ids[4], more: false });
    expect(await store.eventsOfTypesSince(ids[4], ['ca.created'])).toEqual({ events: [], scannedTo: ids[4], more: false });
  });

  it('a full page ends at its last event, and the next read goes on from there', async () => {
    const first = await store.eventsOfTypesSince(0, ['user.created', 'user.deleted'], 2);
    expect(first.events.map((e) => e.data.username)).toEqual(['alice', 'bob']);
    expect(first).toMatchObject({ scannedTo: ids[2], more: true });
    const next = await store.eventsOfTypesSince(first.scannedTo, ['user.created', 'user.deleted'], 2);
    expect(next.events.map((e) => e.data.username)).toEqual(['carol']);
    expect(next).toMatchObject({ scannedTo: ids[4], more: false });
  });

  it('no types: nothing, and everything up to the newest event passed over', async () => {
    expect(await store.eventsOfTypesSince(ids[0], [])).toEqual({ events: [], scannedTo: ids[4], more: false });
  });

  it('one read looks through at most its window of ids, and says there is more', async () => {
    const read = await eventsOfTypesSince(db.knex, ids[0], ['ca.created'], 100, ids[2] - ids[0]);
    expect(read).toEqual({ events: [], scannedTo: ids[2], more: true });
    const rest = await eventsOfTypesSince(db.knex, read.scannedTo, ['ca.created'], 100, ids[4] - ids[2]);
    expect(rest.events.map((e) => e.id)).toEqual([ids[4]]);
    expect(rest).toMatchObject({ scannedTo: ids[4], more: false });
  });

  it('refuses a negative position', async () => {
    await expect(store.eventsOfTypesSince(-1, ['ca.created'])).rejects.toThrow(RangeError);
  });
});
