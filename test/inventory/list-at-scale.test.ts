/**
 * Inventory at scale (docs/DESIGN.md "Inventory"): a CA with more than 20,000 certificates listed
 * unpaged (streamed in batches) and paged (`limit=100`, docs/reference/differences.md D14). Both return every certificate
 * exactly once, in ascending id, each record identical to what the view endpoint answers for it —
 * also after a revocation, whose fields are part of the record.
 *
 * With PostgreSQL at hand (CI), PostgreSQL holds the 20,000 and the embedded database 2,000 — still
 * many batches and pages, the same code above the store — so that CI keeps within its time; without
 * it, the embedded database holds the 20,000.
 */
import request from 'supertest';
import { TABLES } from '../../adapters/store/knex/tables';
import { testDatabaseTargets } from '../helpers/database';
import { API, issueThroughApi, opensslCsr, setupApi, type ApiFixture } from '../api/fixture';
import { cloneCertificates } from './bulk';

jest.setTimeout(120_000);

const AT_SCALE = 20_000;
const copiesOn = (target: { name: string }) => (target.name === 'pglite' && process.env.TEST_DATABASE_URL ? 2_000 : AT_SCALE);

/**
 * A supertest parser that keeps the body as text only. The tests parse it themselves (`JSON.parse(res.text)`);
 * superagent's own JSON parser would parse every unpaged list a second time, up to ~90 MB each at scale,
 * into a `res.body` nothing reads.
 */
function asText(response: request.Response, done: (error: Error | null, body: unknown) => void): void {
  // At run time superagent hands its parsers the incoming message, whose `text` its Response then takes.
  const res = response as unknown as NodeJS.ReadableStream & { text?: string };
  res.setEncoding('utf8');
  let text = '';
  res.on('data', (chunk: string) => (text += chunk));
  res.on('error', done);
  res.on('end', () => {
    res.text = text;
    done(null, undefined);
  });
}

type Rec = { id: number; revoked: boolean; revoked_reason: string; certificate: { serial: string } };

describe.each(testDatabaseTargets().map((t) => ({ ...t, copies: copiesOn(t) })))(
  'a CA with $copies + 8 certificates on $name',
  (target) => {
    let f: ApiFixture;
    let ids: number[];
    const COPIES = target.copies;

    beforeAll(async () => {
      f = await setupApi(target);
      const { csr } = opensslCsr('EC');
      // Real certificates through the sign endpoint (the order runner's insert path), then copies.
      for (let i = 0; i < 8; i++) {
        await issueThroughApi(f, csr, {
          subject: [{ oid: 'CN', value: `real-${i}.example.com` }],
          extensions: [{ type: 'subject_alternative_name', value: [{ type: 'DNS', value: `real-${i}.example.com` }] }],
        });
      }
      await cloneCertificates(f.db.knex, f.ca.id, COPIES, { serialPrefix: 'B', cnPrefix: 'bulk-' });
      ids = (await f.db.knex(TABLES.certificates).where({ ca_id: f.ca.id }).orderBy('id').pluck('id')).map(Number);
      expect(ids.length).toBe(COPIES + 8);
    });
    afterAll(() => f.close());

    const get = (path: string) => request(f.app).get(`${API}${path}`).set(f.auth('alice'));

    async function unpaged(query = ''): Promise<Rec[]> {
      const res = await get(`/ca/${f.ca.serial}/certs/${query}`).buffer(true).parse(asText);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers.link).toBeUndefined();
      return JSON.parse(res.text) as Rec[];
    }

    async function paged(query: string): Promise<Rec[]> {
      const out: Rec[] = [];
      let url: string | null = `${API}/ca/${f.ca.serial}/certs/?${query}`;
      while (url) {
        const res = await request(f.app).get(url).set(f.auth('alice'));
        expect(res.status).toBe(200);
        const page = JSON.parse(res.text) as Rec[];
        expect(page.length).toBeLessThanOrEqual(100);
        out.push(...page);
        const m = /^<([^>]+)>; rel="next"$/.exec(res.headers.link ?? '');
        url = m ? m[1] : null;
      }
      return out;
    }

    /** Records of the view endpoint, as text, for a sample of the list. */
    async function expectSameAsView(records: Rec[], every: number): Promise<number> {
      let checked = 0;
      for (let i = 0; i < records.length; i += i < 10 ? 1 : every) {
        const r = records[i];
        const res = await get(`/ca/${f.ca.serial}/certs/${r.certificate.serial}/`);
        expect(res.status).toBe(200);
        expect(JSON.stringify(r)).toBe(JSON.stringify(JSON.parse(res.text)));
        checked++;
      }
      return checked;
    }

    const texts = (records: Rec[]) => records.map((r) => JSON.stringify(r));

    test('unpaged and paged: each certificate once, ascending id, the same records, as the view endpoint', async () => {
      const whole = await unpaged();
      expect(whole.map((r) => r.id)).toEqual(ids);
      expect(new Set(whole.map((r) => r.certificate.serial)).size).toBe(ids.length);

      const pages = await paged('limit=100');
      expect(pages.map((r) => r.id)).toEqual(ids);
      const a = texts(whole);
      const b = texts(pages);
      const differing = a.filter((t, i) => t !== b[i]).length;
      expect(differing).toBe(0);

      expect(await expectSameAsView(whole, Math.floor(COPIES / 20) - 3)).toBeGreaterThan(25);
    });

    test('a cursor without limit streams the rest of the list', async () => {
      const rest = await request(f.app)
        .get(`${API}/ca/${f.ca.serial}/certs/?cursor=${Buffer.from(String(ids[99])).toString('base64url')}`)
        .set(f.auth('alice'))
        .parse(asText);
      expect(rest.status).toBe(200);
      expect((JSON.parse(rest.text) as Rec[]).map((r) => r.id)).toEqual(ids.slice(100));
    });

    // At scale only: with fewer rows a cost-based planner may rightly read the table instead.
    (COPIES >= AT_SCALE ? test : test.skip)(
      'the search filters are answered from their indexes, not by reading the CA (migration 0003)',
      async () => {
        await f.db.knex.raw(`analyze ${TABLES.certificates}`);
        const planOf = async (query: string): Promise<string> => {
          const seen: { sql: string; bindings?: unknown[] }[] = [];
          const listener = (q: { sql: string; bindings?: unknown[] }) => seen.push(q);
          f.db.knex.on('query', listener);
          try {
            const res = await get(`/ca/${f.ca.serial}/certs/?${query}`);
            expect(res.status).toBe(200);
            expect((JSON.parse(res.text) as Rec[]).length).toBeGreaterThan(0);
          } finally {
            f.db.knex.off('query', listener);
          }
          const list = seen.find((q) => q.sql.includes(TABLES.certificates) && / like /.test(q.sql));
          expect(list).toBeDefined();
          // knex reports PostgreSQL's $n placeholders, numbered in binding order; raw() takes `?`.
          const { rows } = (await f.db.knex.raw(`explain ${list!.sql.replace(/\$\d+/g, '?')}`, (list!.bindings ?? []) as never[])) as {
            rows: { 'QUERY PLAN': string }[];
          };
          return rows.map((r) => r['QUERY PLAN']).join('\n');
        };
        const subject = await planOf('subject=bulk-1234.');
        expect(subject).toContain('ca_api_certificates_cn_trgm_idx');
        const san = await planOf('san=bulk-777.example');
        expect(san).toContain('ca_api_certificates_san_trgm_idx');
        // A range on an index led by (ca_id, serial): the prefix index, or the unique one where the
        // collation lets a btree answer LIKE 'prefix%' (C, as in PGlite).
        const serial = await planOf('serial=B00001A');
        expect(serial).toMatch(/Index Cond: \(\(ca_id = \d+\) AND \(\(serial\)::text (>=|~>=~) 'B00001A'::text\)/);
        for (const plan of [subject, san, serial]) expect(plan).not.toContain('Seq Scan');
      },
    );

    test('after a revocation the listed record carries the revocation, as the view does', async () => {
      const serial = String(
        await f.db
          .knex(TABLES.certificates)
          .where({ id: ids[ids.length - 3] })
          .first()
          .then((r: { serial: string }) => r.serial),
      );
      const res = await request(f.app)
        .post(`${API}/ca/${f.ca.serial}/certs/${serial}/revoke/`)
        .set(f.auth('alice'))
        .send({ reason: 'key_compromise' });
      expect(res.status).toBe(200);

      const without = await unpaged();
      expect(without.map((r) => r.certificate.serial)).not.toContain(serial);
      expect(without.length).toBe(ids.length - 1);
      const all = await unpaged('?revoked=true');
      const listed = all.find((r) => r.certificate.serial === serial)!;
      expect(listed).toMatchObject({ revoked: true, revoked_reason: 'key_compromise' });
      const view = await get(`/ca/${f.ca.serial}/certs/${serial}/`);
      expect(JSON.stringify(listed)).toBe(JSON.stringify(JSON.parse(view.text)));
      expect(JSON.parse(res.text)).toEqual(listed);
    });
  },
);
