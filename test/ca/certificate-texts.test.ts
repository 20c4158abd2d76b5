/**
 * CertificateTexts (lib/api/certificate-texts.ts): list rows from held texts when the store reports the
 * same version of their row, read again otherwise. What a list shows must always be the
 * database's current answer, also after a change the holder was never told of (another instance).
 */
import { CertificateTexts } from '../../lib/api/certificate-texts';
import { certificateRecordText } from '../../lib/api/serialize';
import type { CertificateFilter, CertificateListRow, Store } from '../../lib/ports';
import { issueThroughApi, opensslCsr, setupApi, type ApiFixture } from '../api/fixture';
import { cloneCertificates } from '../inventory/bulk';

let f: ApiFixture;
let filter: CertificateFilter;
beforeAll(async () => {
  f = await setupApi();
  await issueThroughApi(f, opensslCsr('EC').csr);
  await cloneCertificates(f.db.knex, f.ca.id, 59, { serialPrefix: 'D', cnPrefix: 'texts-' });
  filter = { caId: f.ca.id, includeRevoked: true, now: new Date() };
});
afterAll(() => f.close());

/** The store, counting the whole records it is asked for. */
function counting(): { store: Store; records: () => number } {
  const real = f.store;
  let records = 0;
  const getCertificateListRows = async (ids: number[]): Promise<CertificateListRow[]> => {
    records += ids.length;
    return real.getCertificateListRows(ids);
  };
  return { store: Object.assign(Object.create(real) as Store, { getCertificateListRows }), records: () => records };
}

/** What the list must show: the records as the store has them now. */
async function expected(): Promise<string[]> {
  return (await f.store.listCertificates(filter)).map(certificateRecordText);
}

async function all(texts: CertificateTexts): Promise<string[]> {
  const out: string[] = [];
  for await (const batch of texts.batches(filter)) out.push(...batch.map((b) => b.toString('utf8')));
  return out;
}

test('rows and batches are the records as text; a second list reads no whole record', async () => {
  const { store, records } = counting();
  const texts = new CertificateTexts(store);
  const want = await expected();
  expect(want).toHaveLength(60);
  expect((await texts.rows(filter)).map((r) => r.json.toString('utf8'))).toEqual(want);
  expect(records()).toBe(60);
  expect(await all(texts)).toEqual(want);
  expect((await texts.rows({ ...filter, limit: 7 })).map((r) => r.json.toString('utf8'))).toEqual(want.slice(0, 7));
  expect(records()).toBe(60);
  expect(texts.holding.records).toBe(60);
});

test('a revocation it was not told of shows at once (the version is read every time)', async () => {
  const texts = new CertificateTexts(f.store);
  await texts.rows(filter);
  const [victim] = await f.store.listCertificates({ ...filter, limit: 1, afterId: 10 });
  // Straight to the store, as another instance would: nothing here hears of it.
  await f.store.revokeCertificate(victim.id, 'key_compromise', null, new Date());
  const want = await expected();
  const listed = (await texts.rows(filter)).map((r) => r.json.toString('utf8'));
  expect(listed).toEqual(want);
  const row = JSON.parse(listed.find((t) => t.startsWith(`{"id":${victim.id},`))!) as { revoked: boolean; revoked_reason: string };
  expect(row).toMatchObject({ revoked: true, revoked_reason: 'key_compromise' });
  // Filters apply to the current state too: without `revoked` it is gone.
  expect((await texts.rows({ ...filter, includeRevoked: false })).map((r) => r.id)).not.toContain(victim.id);
});

test('held texts stay within maxBytes, least recently used out first; texts stay right', async () => {
  const want = await expected();
  const oneText = Buffer.byteLength(want[0]);
  const { store, records } = counting();
  const texts = new CertificateTexts(store, { maxBytes: oneText * 10 });
  expect((await texts.rows(filter)).map((r) => r.json.toString('utf8'))).toEqual(want);
  expect(texts.holding.bytes).toBeLessThanOrEqual(oneText * 10);
  expect(texts.holding.records).toBeGreaterThan(0);
  expect(texts.holding.records).toBeLessThan(60);
  // Listed again, the held ones are not read whole, the others are.
  const before = records();
  const held = texts.holding.records;
  expect((await texts.rows(filter)).map((r) => r.json.toString('utf8'))).toEqual(want);
  expect(records() - before).toBe(60 - held);
});

test('a list keeps the texts of its first fillRows rows only', async () => {
  const texts = new CertificateTexts(f.store, { fillRows: 25 });
  expect(await all(texts)).toEqual(await expected());
  expect(texts.holding.records).toBe(25);
  const rows = new CertificateTexts(f.store, { fillRows: 25 });
  await rows.rows(filter); // one answer of 60 rows, more than 25: nothing kept
  expect(rows.holding.records).toBe(0);
});
