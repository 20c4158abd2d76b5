/**
 * Listing issuance intents (lib/ports/intents.ts `listIntents`): newest first, narrowed by CA, state
 * (pending, issued, failed), door, a page at a time (`beforeId`, keyset) — what the admin interface's
 * Signatures page and `ca-admin list_intents` show. Intents of each state made by the real authority
 * (intent-states.ts). On every test database target.
 */
import { defaultKeyBackend } from '../../adapters/keys/default-backend';
import { initCa } from '../../lib/ca/authorities';
import { intentState, type Actor, type CaRecord } from '../../lib/ports';
import { TEST_KEK } from '../cli/helpers';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { intentsOfEachState, type IntentsOfEachState } from './intent-states';

const alice: Actor = { type: 'api_user', id: 1, name: 'alice', protocol: 'rest', address: '192.0.2.7' };

describe.each(testDatabaseTargets())('listing issuance intents on $name', (target) => {
  let db: TestDatabase;
  let ca: CaRecord;
  let other: CaRecord;
  let made: IntentsOfEachState;
  let others: IntentsOfEachState;
  const backend = defaultKeyBackend({ keyEncryptionKey: TEST_KEK });

  const newCa = (name: string) =>
    initCa({
      store: db.store,
      keyBackends: [backend],
      name,
      subject: [{ oid: 'CN', value: `${name}.example` }],
      keyType: 'EC',
      expiresDays: 365,
    });

  beforeAll(async () => {
    db = await openTestDatabase(target);
    ca = await newCa('listing');
    other = await newCa('other');
    made = await intentsOfEachState(db.store, ca, backend, alice);
    others = await intentsOfEachState(db.store, other, backend, alice);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  const serials = async (filter: Parameters<TestDatabase['store']['listIntents']>[0]) =>
    (await db.store.listIntents(filter)).map((i) => i.serial);

  it('newest first; the state is pending, issued or failed as the authority left it', async () => {
    const listed = await db.store.listIntents({ caId: ca.id });
    expect(listed.map((i) => [i.serial, intentState(i)])).toEqual([
      [made.pending.serial, 'pending'],
      [made.failed.serial, 'failed'],
      [made.issued.serial, 'issued'],
    ]);
    expect(listed[1].failure).toMatch(/^Not signed: .*unplugged/);
    expect(listed[2]).toMatchObject({ certificateId: made.issued.id, door: 'rest', requester: alice });
  });

  it('by state: each state only its own, over every CA', async () => {
    expect(await serials({ state: 'pending' })).toEqual([others.pending.serial, made.pending.serial]);
    expect(await serials({ state: 'failed' })).toEqual([others.failed.serial, made.failed.serial]);
    expect(await serials({ state: 'issued' })).toEqual([others.issued.serial, made.issued.serial]);
    expect(await serials({ state: 'failed', caId: other.id })).toEqual([others.failed.serial]);
    // The older flag still means pending.
    expect(await serials({ pendingOnly: true, caId: ca.id })).toEqual([made.pending.serial]);
  });

  it('by door, with the other filters', async () => {
    expect(await serials({ door: 'est' })).toEqual([others.failed.serial, made.failed.serial]);
    expect(await serials({ door: 'acme', caId: ca.id })).toEqual([made.pending.serial]);
    expect(await serials({ door: 'rest', state: 'failed' })).toEqual([]);
    expect(await serials({ door: 'scep' })).toEqual([]);
  });

  it('since: the intents recorded from then on', async () => {
    expect(await serials({ caId: ca.id, since: made.pending.created })).toEqual([made.pending.serial]);
    expect(await serials({ caId: ca.id, since: new Date(made.pending.created.getTime() + 1) })).toEqual([]);
    expect(await serials({ state: 'failed', since: new Date(Date.now() - 3_600_000) })).toEqual([others.failed.serial, made.failed.serial]);
  });

  it('a page at a time: `beforeId` the oldest id shown, `limit` the page size; the pages make up the whole list', async () => {
    const all = await db.store.listIntents();
    expect(all).toHaveLength(6);
    expect(all.map((i) => i.id)).toEqual([...all.map((i) => i.id)].sort((a, b) => b - a));
    const paged: number[] = [];
    for (let beforeId: number | undefined; ;) {
      const page = await db.store.listIntents({ beforeId, limit: 4 });
      paged.push(...page.map((i) => i.id));
      if (page.length < 4) break;
      beforeId = page[page.length - 1].id;
    }
    expect(paged).toEqual(all.map((i) => i.id));
    expect(await serials({ caId: ca.id, beforeId: made.failed.id })).toEqual([made.issued.serial]);
    expect(await serials({ caId: ca.id, beforeId: 1 })).toEqual([]);
  });
});
