/**
 * The certificate list as CSV (docs/guides/admin-interface.md): `certs/export.csv` with the list's filters
 * gives exactly the rows of that list (every page of it, in id order), of the CAs the user may view,
 * streamed with the CLI's columns; a field a spreadsheet would take for a formula gets a leading `'`.
 */
import request from 'supertest';
import { defaultProfiles, signCert } from '../../lib';
import { EXPORT_PAGE_SIZE } from '../../lib/admin/handlers/export';
import type { CaRecord, CertificateRecord } from '../../lib/ports';
import { issueThroughApi, opensslCsr } from '../api/fixture';
import { cloneCertificates } from '../inventory/bulk';
import { ADMIN, certificateCopy, createCertificateViewer, listedSerials, setupAdmin, type AdminFixture } from './admin-fixture';

const HEADER = 'serial,common_name,ca,profile,not_before,not_after,revoked,revoked_reason,subject_alternative_names';
const EVIL_CN = '=HYPERLINK("http://evil.example/","click")';
const BULK = EXPORT_PAGE_SIZE + 30;

let f: AdminFixture;
let second: CaRecord;
let bulk: CaRecord;
let bulkSerials: string[];
let revoked: CertificateRecord;

/** RFC 4180 records (quoted fields with doubled quotes, CRLF line ends). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && c === ',') {
      row.push(field);
      field = '';
    } else if (!quoted && c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else {
      field += c;
    }
  }
  expect(row.length + field.length).toBe(0); // the last line ends with CRLF
  return rows;
}

/** A serial as the list's links name it: hex, upper case, no colons, no leading zeros. */
const bare = (serial: string) =>
  serial
    .replace(/:/g, '')
    .toUpperCase()
    .replace(/^0+(?=.)/, '');

type Agent = ReturnType<typeof request.agent>;

/** The serials of the HTML list for `query`, every page of it. */
const listedFor = (agent: Agent, query: Record<string, string>): Promise<string[]> =>
  listedSerials(agent, `${ADMIN}certs/?${new URLSearchParams(query)}`);

/** The export for `query`: its data rows (the header checked). */
async function exported(agent: Agent, query: Record<string, string>): Promise<string[][]> {
  const res = await agent.get(`${ADMIN}certs/export.csv`).query(query).expect(200);
  const [header, ...rows] = parseCsv(res.text);
  expect(header.join(',')).toBe(HEADER);
  return rows;
}

beforeAll(async () => {
  f = await setupAdmin();
  const { api } = f;
  const issue = (cn: string, sans: string[]) =>
    issueThroughApi(api, opensslCsr('EC').csr, {
      subject: [{ oid: 'CN', value: cn }],
      extensions: [{ type: 'subject_alternative_name', value: sans.map((value) => ({ type: 'DNS', value })) }],
    });
  const web = await issue('web.export.example', ['web.export.example', 'alt.export.example']);
  await issue(EVIL_CN, ['evil.export.example']);
  const gone = await issue('gone.export.example', ['gone.export.example']);
  const found = (await api.store.findCertificate(api.ca.id, gone)) as CertificateRecord;
  revoked = await api.store.revokeCertificate(found.id, 'key_compromise', null, new Date());

  second = await api.makeCa({ name: 'second', apiEnabled: true });
  await signCert({
    store: api.store,
    keyBackends: { default: api.keyBackend },
    profiles: defaultProfiles(),
    ca: second,
    csr: opensslCsr('EC').csr,
    subject: [{ oid: '2.5.4.3', value: 'other.export.example' }],
  });
  await createCertificateViewer(api, 'carol', [second.serial]);
  await createCertificateViewer(api, 'dan', false);

  // More certificates than one page of the export, on a CA of their own.
  bulk = await api.makeCa({ name: 'bulk' });
  const model = (await api.store.findCertificate(api.ca.id, web)) as CertificateRecord;
  // One copy through the store, then the rest copied from it by the database (test/inventory/bulk.ts).
  await api.store.insertCertificate(certificateCopy(model, 'B00000000', { cn: 'bulk0.export.example', caId: bulk.id }));
  await cloneCertificates(api.db.knex, bulk.id, BULK - 1, { serialPrefix: 'B', cnPrefix: 'bulk' });
  bulkSerials = Array.from({ length: BULK }, (_, i) => `B${i.toString(16).toUpperCase().padStart(8, '0')}`);
}, 180_000);

afterAll(async () => {
  await f?.close();
});

describe('certs/export.csv', () => {
  test('the rows are exactly those of the filtered list, every page of it, in id order', async () => {
    const agent = await f.signIn('alice');
    const queries: Record<string, string>[] = [
      { q: 'export.example' },
      { q: 'alt.export', status: 'all' },
      { q: 'gone', status: 'all' },
      { q: 'gone' }, // revoked: not among the valid ones
      { ca: f.api.ca.serial, status: 'all' },
      { ca: second.serial },
      { q: bulkSerials[7].slice(0, 5) }, // a serial prefix
      { status: 'all' },
      { status: 'revoked' },
      { status: 'expiring', days: '3650' },
      { status: 'all', profile: revoked.profile },
      { q: 'export.example', autogenerated: 'all' },
    ];
    for (const query of queries) {
      const rows = await exported(agent, query);
      expect(rows.map((r) => bare(r[0]))).toEqual(await listedFor(agent, query));
      expect(rows.length > 0).toBe(query.q !== 'gone' || query.status === 'all');
    }
    const gone = await exported(agent, { q: 'gone', status: 'all' });
    expect(gone).toHaveLength(1);
    expect(gone[0].slice(1, 9)).toEqual([
      'gone.export.example',
      'child',
      revoked.profile,
      revoked.notBefore.toISOString(),
      revoked.notAfter.toISOString(),
      'true',
      'key_compromise',
      'DNS:gone.export.example',
    ]);
  });

  test('more rows than one page of the export are all written, in id order, after the header', async () => {
    const agent = await f.signIn('alice');
    const rows = await exported(agent, { ca: bulk.serial });
    expect(rows.map((r) => bare(r[0]))).toEqual(bulkSerials);
    expect(new Set(rows.map((r) => r[2]))).toEqual(new Set(['bulk']));
    // Across CAs too: the bulk CA's rows in their order, among the others.
    const all = (await exported(agent, { status: 'all' })).map((r) => bare(r[0]));
    expect(all.filter((s) => bulkSerials.includes(s))).toEqual(bulkSerials);
    expect(all.length).toBeGreaterThan(BULK);
  });

  test('a download of today, never cached; HEAD sends the headers alone', async () => {
    const agent = await f.signIn('alice');
    const res = await agent.get(`${ADMIN}certs/export.csv`).query({ q: 'web.export' }).expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="certificates-${new Date().toISOString().slice(0, 10)}.csv"`);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['transfer-encoding']).toBe('chunked'); // written as it is read, no Content-Length
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    const head = await agent.head(`${ADMIN}certs/export.csv`).expect(200);
    expect(head.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(head.text ?? '').toBe('');
  });

  test('a user with view_certificate on one CA gets only its rows; one without it, the header alone', async () => {
    const carol = await f.signIn('carol');
    const rows = await exported(carol, { status: 'all' });
    expect(rows.map((r) => r[1])).toEqual(['other.export.example']);
    expect(rows[0][2]).toBe('second');
    expect(await exported(carol, { ca: f.api.ca.serial, status: 'all' })).toEqual([]);
    expect(await exported(carol, { q: 'web.export' })).toEqual([]);
    const dan = await f.signIn('dan');
    expect(await exported(dan, { status: 'all' })).toEqual([]);
  });

  test('without a session: the sign-in page, and nothing of the list', async () => {
    const res = await request(f.app).get(`${ADMIN}certs/export.csv?q=web`).expect(303);
    expect(res.headers.location).toBe(`${ADMIN}login?next=${encodeURIComponent(`${ADMIN}certs/export.csv?q=web`)}`);
    expect(res.text).not.toContain('export.example');
    await request(f.app).get(`${ADMIN}certs/export.csv`).set('Cookie', 'ca_admin=forged').expect(303);
    await request(f.app).post(`${ADMIN}certs/export.csv`).expect(405); // a page: GET and HEAD only
  });

  test('a common name that a spreadsheet would run as a formula comes out as text', async () => {
    const agent = await f.signIn('alice');
    const res = await agent.get(`${ADMIN}certs/export.csv`).query({ q: 'evil.export' }).expect(200);
    const line = res.text.split('\r\n')[1];
    expect(line).toContain(`,"'=HYPERLINK(""http://evil.example/"",""click"")",child,`);
    expect(parseCsv(res.text)[1][1]).toBe(`'${EVIL_CN}`);
  });

  test('the list page links to the export with its filters', async () => {
    const agent = await f.signIn('alice');
    const page = await agent.get(`${ADMIN}certs/`).query({ q: 'web.export', ca: f.api.ca.serial, status: 'all' }).expect(200);
    const href = `${ADMIN}certs/export.csv?${new URLSearchParams({ q: 'web.export', ca: f.api.ca.serial, status: 'all' })}`;
    expect(page.text).toContain(`<a href="${href.replace(/&/g, '&amp;')}" download>Export CSV</a>`);
    const none = await agent.get(`${ADMIN}certs/`).query({ q: 'no-such-name' }).expect(200);
    expect(none.text).not.toContain('Export CSV');
  });
});
