/**
 * The admin interface's Signatures page (docs/guides/admin-interface.md "Signatures"): every
 * certificate signature the CA made, recorded as an issuance intent before it was made — issued (a
 * link to the certificate), failed (why), pending — newest first, filtered by CA, state and way in,
 * a page at a time. It names every CA and requester, as the audit log: `view_auditlog` only. Intents
 * made by the real authority (test/issuance/intent-states.ts). On PGlite and, with TEST_DATABASE_URL,
 * on PostgreSQL.
 */
import { ADMIN_PERMISSIONS, ALL_PERMISSIONS, isIntentTaken, type Actor } from '../../lib/ports';
import { serialToColons } from '../../lib/x509/serial-format';
import { PASSWORD } from '../api/fixture';
import { hashPassword } from '../helpers/http';
import { testDatabaseTargets } from '../helpers/database';
import { intentsOfEachState, type IntentsOfEachState } from '../issuance/intent-states';
import { ADMIN, setupAdmin, type AdminAgent, type AdminFixture } from './admin-fixture';

const alice: Actor = { type: 'api_user', id: 1, name: 'alice', protocol: 'rest', address: '192.0.2.7' };

/** The table's rows, as text (tags removed, space collapsed). */
function rowsOf(page: string): string[] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) =>
    m[1]
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

/** The option of a select that is chosen (the admin's `option`: the attribute after a space or two). */
const chosen = (value: string, label: string): RegExp => new RegExp(`<option value="${value}"\\s+selected>${label}</option>`);

describe.each(testDatabaseTargets())('the Signatures page on $name', (target) => {
  let f: AdminFixture;
  let auditor: AdminAgent;
  let made: IntentsOfEachState;
  let onRoot: IntentsOfEachState;

  beforeAll(async () => {
    f = await setupAdmin({}, undefined, target);
    await f.api.store.createUser('auditor', hashPassword(PASSWORD), [...ALL_PERMISSIONS, ...ADMIN_PERMISSIONS]);
    onRoot = await intentsOfEachState(f.api.store, f.api.root, f.api.keyBackend, alice);
    made = await intentsOfEachState(f.api.store, f.api.ca, f.api.keyBackend, alice);
    auditor = await f.signIn('auditor');
  }, 120_000);
  afterAll(async () => {
    await f?.close();
  });
  afterEach(() => {
    expect(f.errors).toEqual([]);
  });

  const get = (query: Record<string, string> = {}) => auditor.get(`${ADMIN}signatures/?${new URLSearchParams(query)}`);

  it('lists every signature newest first: time, CA by name, serial, way in, requester, and the state — issued links its certificate, failed says why', async () => {
    const page = await get().expect(200);
    expect(page.text).toContain('<h1>Signatures</h1>');
    expect(page.text).toMatch(/recorded \(an issuance intent\) before the key made the signature/);
    const time = '\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} UTC';
    const requester = 'api_user alice over rest from 192\\.0\\.2\\.7';
    const rows = rowsOf(page.text);
    expect(rows).toHaveLength(6);
    expect(rows[0]).toMatch(new RegExp(`^${time} child ${serialToColons(made.pending.serial)} acme ${requester} Pending$`));
    expect(rows[1]).toMatch(new RegExp(`^${time} child ${serialToColons(made.failed.serial)} est Failed: Not signed: .*unplugged`));
    expect(rows[2]).toMatch(new RegExp(`^${time} child ${serialToColons(made.issued.serial)} rest ${requester} Issued$`));
    expect(rows[3]).toMatch(/ root .* acme .* Pending$/);
    expect(page.text).toContain(`<a href="${ADMIN}certs/${f.api.ca.serial}/${made.issued.serial}/">Issued</a>`);
    expect(page.text).toContain(`<a href="${ADMIN}cas/${f.api.ca.serial}/" title="${serialToColons(f.api.ca.serial)}">child</a>`);
    // The certificate it links is there.
    await auditor.get(`${ADMIN}certs/${f.api.ca.serial}/${made.issued.serial}/`).expect(200);
    // Among the audit pages of the navigation.
    expect(page.text).toContain(`<a href="${ADMIN}signatures/">Signatures</a>`);
  });

  it('filters by CA, state and way in; the choices keep what was chosen', async () => {
    const failed = await get({ state: 'failed' }).expect(200);
    expect(rowsOf(failed.text).map((r) => r.includes('Failed: Not signed'))).toEqual([true, true]);
    expect(failed.text).toMatch(chosen('failed', 'Failed'));
    const child = await get({ ca: serialToColons(f.api.ca.serial), state: 'issued' }).expect(200);
    expect(rowsOf(child.text)).toEqual([expect.stringContaining(serialToColons(made.issued.serial))]);
    expect(child.text).toMatch(chosen(f.api.ca.serial, 'child'));
    const acme = await get({ door: 'acme', ca: f.api.root.serial }).expect(200);
    expect(rowsOf(acme.text)).toEqual([expect.stringContaining(serialToColons(onRoot.pending.serial))]);
    expect(acme.text).toMatch(chosen('acme', 'acme'));
    // A way in the library does not record, and a CA no store holds: nothing matches, both stay chosen.
    const none = await get({ door: 'host-door', ca: 'AB:FF' }).expect(200);
    expect(none.text).toContain('No signature matches.');
    expect(none.text).toMatch(chosen('host-door', 'host-door'));
    expect(none.text).toMatch(chosen('ABFF', 'AB:FF'));
  });

  it.each([
    ['state', 'revoked', 'The query parameter state is not one of pending, issued, failed.'],
    ['door', 'rest api', 'The query parameter door is not a way in'],
    ['door', 'x'.repeat(17), 'The query parameter door is not a way in'],
    ['before', '0', 'The query parameter before is not a whole number'],
    ['before', '9007199254740992', 'The query parameter before is not a whole number'],
    ['ca', 'xyz', 'The query parameter ca is not a serial'],
  ])('?%s=%s: a 400 page saying what is wrong', async (name, value, message) => {
    const res = await get({ [name]: value });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain(`class="message error" role="alert">${message}`);
  });

  it('a page at a time, newest first: "Older signatures" continues where the page ended', async () => {
    for (let i = 0; i < 100; i++) {
      const r = await f.api.store.recordIntent({
        caId: f.api.ca.id,
        serial: `5A${i.toString(16).padStart(4, '0').toUpperCase()}`,
        door: 'library',
        requester: null,
        answers: null,
        tbs: Buffer.from([0x30, 0]),
      });
      if (isIntentTaken(r)) throw new Error('unexpected');
    }
    const first = await get({ ca: f.api.ca.serial }).expect(200);
    const firstRows = rowsOf(first.text);
    expect(firstRows).toHaveLength(100);
    expect(firstRows[0]).toContain('5A:00:63');
    const next = /<a href="([^"]+)" rel="next">Older signatures<\/a>/.exec(first.text)?.[1].replace(/&amp;/g, '&');
    expect(next).toMatch(/^\/admin\/signatures\/\?ca=[0-9A-F]+&state=&door=&before=\d+$/);
    const second = await auditor.get(next as string).expect(200);
    expect(rowsOf(second.text).map((r) => r.split(' ')[4])).toEqual([
      serialToColons(made.pending.serial),
      serialToColons(made.failed.serial),
      serialToColons(made.issued.serial),
    ]);
    expect(second.text).not.toContain('rel="next"');
  });

  it('the dashboard counts the signatures of the last 24 hours not issued, each a link to them', async () => {
    const dashboard = await auditor.get(ADMIN).expect(200);
    expect(dashboard.text).toContain('<h2>Signatures not issued</h2>');
    // One failed on each CA; pending: one on each CA, and the hundred of the paging test.
    expect(dashboard.text).toMatch(
      new RegExp(
        `<a href="${ADMIN}signatures/\\?state=failed">2 failed</a>, <a href="${ADMIN}signatures/\\?state=pending">100 or more pending</a>`,
      ),
    );
  });

  it("a CA's page links to its signatures, for those who may see them", async () => {
    const caPage = await auditor.get(`${ADMIN}cas/${f.api.ca.serial}/`).expect(200);
    const link = /href="([^"]*signatures\/\?ca=[^"]*)">Its signatures</.exec(caPage.text);
    expect(link).not.toBeNull();
    const listed = await auditor.get(link![1].replace(/&amp;/g, '&')).expect(200);
    // The child CA's signatures only (other tests of this file add more of them): none of the root's.
    const cas = rowsOf(listed.text).map((r) => r.split(' ')[3]);
    expect(cas.length).toBeGreaterThan(0);
    expect(new Set(cas)).toEqual(new Set(['child']));
    expect(listed.text).not.toContain(serialToColons(onRoot.issued.serial));
    const alicePage = await (await f.signIn('alice')).get(`${ADMIN}cas/${f.api.ca.serial}/`).expect(200);
    expect(alicePage.text).not.toContain('Its signatures');
  });

  it('needs view_auditlog, as the audit log: without it, 403 and no link', async () => {
    const alicePage = await f.signIn('alice');
    const res = await alicePage.get(`${ADMIN}signatures/`);
    expect(res.status).toBe(403);
    expect(res.text).not.toContain(made.issued.serial);
    const dashboard = await alicePage.get(ADMIN).expect(200);
    expect(dashboard.text).not.toContain('signatures/');
    expect(dashboard.text).not.toContain('Signatures not issued');
  });
});
