/**
 * The admin interface as an operator finds it on a fresh install (docs/guides/admin-interface.md): the
 * dashboard's expiry chart says why it is empty; times read `2026-12-06 08:31:42 UTC` everywhere
 * (no microseconds); the audit log and the dashboard's events name CAs by name (a link to the CA, the
 * serial in its title), newest first, paged without gap or repeat; the audit filter offers the CAs
 * and actors to choose from, and a bad CA serial in its query is a 400; a certificate's page shows its
 * key type and size; signing on the Issue page ends on the new certificate's page with a notice;
 * serials are shown with colons on every page; a read-only Profiles page lists the profiles. On
 * PGlite and, with TEST_DATABASE_URL, on PostgreSQL.
 */
import { ADMIN_PERMISSIONS, ALL_PERMISSIONS, type AuditLog, type CertificateRecord } from '../../lib/ports';
import { serialToColons } from '../../lib/x509/serial-format';
import { testDatabaseTargets } from '../helpers/database';
import { hashPassword } from '../helpers/http';
import { issueThroughApi, opensslCsr, PASSWORD } from '../api/fixture';
import { ADMIN, formToken, setupAdmin, type AdminAgent, type AdminFixture } from './admin-fixture';

/** The text of a page without its tags, spaces collapsed. */
const textOf = (page: string): string =>
  page
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .replace(/ ([.,:])/g, '$1');

/** The ids of the audit records on an audit page, in the order shown. */
const recordIds = (page: string): number[] => [...page.matchAll(/<tr>\s*<td>(\d+)<\/td>/g)].map((m) => Number(m[1]));

describe.each(testDatabaseTargets())('the admin interface as an operator sees it, on $name', (target) => {
  let f: AdminFixture;
  let agent: AdminAgent;
  let log: AuditLog;
  let rsa: CertificateRecord;
  let ed: CertificateRecord;

  beforeAll(async () => {
    f = await setupAdmin({}, undefined, target);
    await f.api.store.createUser('auditor', hashPassword(PASSWORD), [...ALL_PERMISSIONS, ...ADMIN_PERMISSIONS]);
    log = f.api.store.auditLog;
    agent = await f.signIn('auditor');
  }, 120_000);

  afterAll(async () => {
    await f?.close();
  });

  afterEach(() => {
    expect(f.errors).toEqual([]);
  });

  test('a fresh install: the expiry chart says no certificate expires in the next 13 weeks, and how many later', async () => {
    // The default profile's 100 days: beyond the chart's 91.
    await issueThroughApi(f.api, opensslCsr('EC').csr, { subject: [{ oid: 'CN', value: 'later.example' }] });
    const page = (await agent.get(ADMIN).expect(200)).text;
    const valid = Number(/<span class="figure">(\d+)<\/span> valid</.exec(page)?.[1]);
    expect(valid).toBeGreaterThan(0);
    expect(page).not.toContain('<svg');
    const said = /<p class="message" role="status">([\s\S]*?)<\/p>/.exec(page.slice(page.indexOf('Expiring in the next 13 weeks')));
    expect(textOf(said?.[1] ?? '').trim()).toBe(
      `No valid certificate expires in the next 13 weeks. ${valid} valid certificate${valid === 1 ? ' expires' : 's expire'} later: see the certificate list.`,
    );
    expect(said?.[1]).toContain(`href="${ADMIN}certs/?status=valid"`);
  });

  test('a certificate page shows its key type and size: RSA 2048, EC P-256, Ed25519', async () => {
    const of = async (keyType: 'RSA' | 'EC' | 'Ed25519') => {
      const serial = await issueThroughApi(f.api, opensslCsr(keyType).csr, { subject: [{ oid: 'CN', value: `${keyType}.example` }] });
      return (await f.api.store.findCertificate(f.api.ca.id, serial)) as CertificateRecord;
    };
    rsa = await of('RSA');
    ed = await of('Ed25519');
    const ec = await of('EC');
    for (const [cert, text] of [
      [rsa, 'RSA 2048'],
      [ec, 'EC P-256'],
      [ed, 'Ed25519'],
    ] as const) {
      const page = (await agent.get(`${ADMIN}certs/${f.api.ca.serial}/${cert.serial}/`).expect(200)).text;
      expect(page).toMatch(new RegExp(`<dt>Public key</dt>\\s*<dd>${text}</dd>`));
    }
  });

  test('times read 2026-12-06 08:31:42 UTC on the audit log, the dashboard and a certificate history: no microseconds', async () => {
    const pages = [
      (await agent.get(`${ADMIN}audit/`).expect(200)).text,
      (await agent.get(ADMIN).expect(200)).text,
      (await agent.get(`${ADMIN}certs/${f.api.ca.serial}/${rsa.serial}/`).expect(200)).text,
    ];
    for (const whole of pages) {
      const page = whole.replace(/<td class="mono">[\s\S]*?<\/td>/g, ''); // the records' data, as stored, apart
      expect(page).not.toMatch(/\d{2}:\d{2}:\d{2}\.\d+/);
      expect(page).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
      expect(page).toMatch(/<td>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC<\/td>/);
    }
  });

  test('the audit log and the dashboard name the CA (a link to its page, the serial in its title); serials have colons', async () => {
    const ca = f.api.ca;
    const link = `<a href="${ADMIN}cas/${ca.serial}/" title="${serialToColons(ca.serial)}">${ca.name}</a>`;
    const audit = (await agent.get(`${ADMIN}audit/`).expect(200)).text;
    expect(audit).toContain(link);
    // The certificate's serial with colons, a link to its page.
    expect(audit).toContain(`<a href="${ADMIN}certs/${ca.serial}/${rsa.serial}/">${serialToColons(rsa.serial)}</a>`);
    expect(audit).not.toMatch(new RegExp(`>${ca.serial}<`));
    const dashboard = (await agent.get(ADMIN).expect(200)).text;
    expect(dashboard.slice(dashboard.indexOf('Recent events'))).toContain(link);
  });

  test('the audit log runs newest first, and its pages follow one another without gap or repeat', async () => {
    for (let i = 0; i < 105; i++) await log.recordEvent('admin.test.filler', { type: 'operator', name: 'filler' }, { i });
    const all = (await log.auditRows({ limit: 1000 })).map((r) => r.id);
    const shown: number[] = [];
    let next: string | null = `${ADMIN}audit/`;
    let pages = 0;
    while (next) {
      const page = (await agent.get(next).expect(200)).text;
      shown.push(...recordIds(page));
      const more = /<a href="([^"]+)" rel="next">/.exec(page);
      next = more ? more[1].replace(/&amp;/g, '&') : null;
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    expect(shown).toEqual([...all].reverse());
    // The dashboard's newest records, newest first, each a link to the audit log at that record (first on its page).
    const dashboard = (await agent.get(ADMIN).expect(200)).text;
    const recent = dashboard.slice(dashboard.indexOf('<h2>Recent events</h2>'));
    const linked = [...recent.matchAll(/<td><a href="([^"]+)">(\d+)<\/a><\/td>/g)];
    expect(linked.map((m) => Number(m[2]))).toEqual([...all].reverse().slice(0, 10));
    const at = linked[3];
    expect(recordIds((await agent.get(at[1].replace(/&amp;/g, '&')).expect(200)).text)[0]).toBe(Number(at[2]));
  });

  test('the audit filter offers the CAs by name and the actors; a CA chosen filters; a bad CA serial is a 400 page', async () => {
    const page = (await agent.get(`${ADMIN}audit/`).expect(200)).text;
    for (const ca of await f.api.store.listCas()) expect(page).toContain(`<option value="${ca.serial}" >${ca.name}</option>`);
    expect(page).toMatch(/<select id="ca" name="ca">\s*<option value="">All CAs<\/option>/);
    expect(page).toMatch(/<input id="actor" name="actor" list="actors"/);
    expect(page).toMatch(/<datalist id="actors">[\s\S]*<option value="alice"><\/option>[\s\S]*<\/datalist>/);
    const ofCa = (await agent.get(`${ADMIN}audit/`).query({ ca: f.api.root.serial }).expect(200)).text;
    expect(ofCa).toContain(`<option value="${f.api.root.serial}"  selected>${f.api.root.name}</option>`);
    expect(ofCa).not.toContain(`title="${serialToColons(f.api.ca.serial)}"`);
    // The serial with colons, as pages show it, filters too.
    const colons = (
      await agent
        .get(`${ADMIN}audit/`)
        .query({ ca: serialToColons(f.api.ca.serial) })
        .expect(200)
    ).text;
    expect(recordIds(colons).length).toBeGreaterThan(0);
    for (const bad of ['not-a-serial', 'zz', '::']) {
      const res = await agent.get(`${ADMIN}audit/`).query({ ca: bad });
      expect([res.status, res.text]).toEqual([400, expect.stringContaining('The query parameter ca is not a serial')]);
    }
  });

  test('after "Sign" the operator lands on the new certificate with a notice that it was issued', async () => {
    const form = (await agent.get(`${ADMIN}issue`).expect(200)).text;
    expect(form.slice(form.indexOf('<main'))).toContain(`<a href="${ADMIN}profiles/">`);
    const signed = await agent
      .post(`${ADMIN}issue`)
      .type('form')
      .send({
        _csrf: formToken(form, `${ADMIN}issue`),
        csr: opensslCsr('EC', 'confirmed.example').csr,
        ca: f.api.ca.serial,
        profile: 'webserver',
        subject: 'CN=confirmed.example',
        san: 'DNS:confirmed.example',
        action: 'sign',
      })
      .expect(303);
    const location = signed.headers.location as string;
    expect(location).toMatch(new RegExp(`^${ADMIN}certs/${f.api.ca.serial}/[0-9A-F]+/\\?issued=1$`));
    const page = (await agent.get(location).expect(200)).text;
    expect(page).toMatch(/<p class="message ok" role="status">\s*Certificate issued\.[^<]*<\/p>/);
    // The page without the parameter says nothing of the kind.
    expect((await agent.get(location.replace('?issued=1', '')).expect(200)).text).not.toContain('Certificate issued');
  });

  test('a Profiles page, linked from the navigation, lists each profile: description, key usages, validity, the default', async () => {
    const page = (await agent.get(`${ADMIN}profiles/`).expect(200)).text;
    expect(page).toContain(`<a href="${ADMIN}profiles/">Profiles</a>`);
    const { profiles, defaultProfile } = f.router.options;
    for (const [name, profile] of profiles) {
      const row = new RegExp(`<th scope="row">${name}${name === defaultProfile ? ' \\(default\\)' : ''}</th>`);
      expect(page).toMatch(row);
      if (profile.description) expect(page).toContain(profile.description);
    }
    const webserver = textOf(page.slice(page.indexOf('<th scope="row">webserver'))).trim();
    expect(webserver).toMatch(
      /^webserver \(default\) A certificate for a webserver\. Digital signature, Key encipherment, Key agreement \(critical\) TLS web server authentication \(serverAuth\) 100 days /,
    );
  });
});
