/**
 * The admin interface's overview and issuing (docs/guides/admin-interface.md): the dashboard's table of
 * certificates by CA (each figure the length of the list it links to; a user granted one CA sees that
 * CA's row only) with each CA's pending and failed sign orders, and the newest audit records for a
 * user with view_auditlog only; the audit log filtered by event type and by actor, exactly; the issue
 * page's profiles with their descriptions, its preview — what "Sign" then signs, with nothing written
 * by the preview — and its CSR-file script, served from the package under the strict CSP; an ACME
 * account's orders, for a user who may view the CA only.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import request from 'supertest';
import { createApiUser, defaultProfiles, revokeCert, signCert } from '../../lib';
import { CSR_FILE_SCRIPT, CSR_FILE_SCRIPT_HASH } from '../../lib/admin/csr-file-script';
import type { AcmeStore, Actor, CaRecord, CertificateRecord, NewCertificate } from '../../lib/ports';
import { opensslCsr, PASSWORD } from '../api/fixture';
import { signRequest } from '../store/records';
import { onChallengeStart, onIssued } from '../../lib/acme/state-machine';
import { record, startIssuance } from '../helpers/acme-state';
import {
  ADMIN,
  certificateCopy,
  createCertificateViewer,
  formToken,
  listedSerials,
  NO_PERMISSIONS,
  setupAdmin,
  type AdminFixture,
} from './admin-fixture';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const ALICE_OVER_ADMIN: Actor = { type: 'api_user', name: 'alice', protocol: 'admin', address: '127.0.0.1' };

let f: AdminFixture;
let second: CaRecord;
/** A certificate of `f.api.ca` to copy rows from (copies get other serials and validity). */
let model: CertificateRecord;

/** A copy of `cert` under another serial, valid from `from` to `to` days from now. */
function copyOf(cert: CertificateRecord, caId: number, serial: string, from: number, to: number): NewCertificate {
  const notBefore = new Date(Date.now() + from * DAY);
  const notAfter = new Date(Date.now() + to * DAY);
  return certificateCopy(cert, serial, { caId, notBefore, notAfter });
}

/** The dashboard's "Certificates by CA" rows: the CA's name, then each figure with its link (null: no link). */
function perCaRows(page: string): { ca: string; cells: { figure: number; href: string | null }[] }[] {
  const start = page.indexOf('<h2>Certificates by CA</h2>');
  if (start < 0) return [];
  const table = page.slice(start, page.indexOf('</table>', start));
  return [...table.matchAll(/<th scope="row">([^<]+)<\/th>([\s\S]*?)<\/tr>/g)].map((row) => ({
    ca: row[1],
    cells: [...row[2].matchAll(/<td>(?:<a href="([^"]+)">)?(\d+)(?:<\/a>)?<\/td>/g)].map((c) => ({
      figure: Number(c[2]),
      href: c[1] ? c[1].replace(/&amp;/g, '&') : null,
    })),
  }));
}

/** The ids of an audit page's records, in the order shown. */
const auditIds = (page: string): number[] => [...page.matchAll(/<tr>\s*<td>(\d+)<\/td>\s*<td>\d{4}-/g)].map((m) => Number(m[1]));

const count = async (table: string) => Number(((await f.api.db.knex(table).count('* as n').first()) as { n: string | number }).n);

/** A CSR made by openssl with a subject and subjectAltNames (DNS and IP). */
function csrWithNames(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-preview-'));
  try {
    const out = path.join(dir, 'req.pem');
    execFileSync(
      'openssl',
      ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', path.join(dir, 'key.pem')]
        .concat(['-out', out, '-subj', '/CN=preview.example.com/O=Preview Org'])
        .concat(['-addext', 'subjectAltName=DNS:preview.example.com,DNS:www.preview.example.com,IP:10.9.8.7']),
      { stdio: 'pipe' },
    );
    return fs.readFileSync(out, 'utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  f = await setupAdmin();
  const { api } = f;
  const signing = { store: api.store, keyBackends: { default: api.keyBackend }, profiles: defaultProfiles() };
  const sign = (ca: CaRecord, expiresDays: number, requester?: Actor) =>
    signCert({
      ...signing,
      ca,
      expiresDays,
      requester,
      csr: opensslCsr('EC').csr,
      subject: [{ oid: '2.5.4.3', value: 'overview.example' }],
    });
  second = await api.makeCa({ name: 'second', apiEnabled: true });

  model = await sign(api.ca, 100); // child: valid
  await sign(api.ca, 10); // child: valid, expiring within 30 days
  await api.store.insertCertificate(copyOf(model, api.ca.id, 'C0FFEE01', -90, -5)); // child: expired
  await revokeCert(api.store, await sign(api.ca, 50, ALICE_OVER_ADMIN), { reason: 'superseded', actor: ALICE_OVER_ADMIN }); // child: revoked
  await sign(second, 60); // second: valid
  await api.store.insertCertificate(copyOf(model, second.id, 'C0FFEE02', -10, 3)); // second: valid, expiring
  await api.store.insertCertificate(copyOf(model, second.id, 'C0FFEE03', -90, -40)); // second: expired

  // Sign orders of child: one pending (leased to another instance, so this fixture's runner leaves it), one failed.
  const alice = await api.store.findUser('alice');
  const lease = { owner: 'another-instance', expires: new Date(Date.now() + HOUR) };
  const order = () => api.store.createOrder({ caId: api.ca.id, userId: alice?.id as number, request: signRequest(), lease });
  await order();
  await api.store.markOrderFailed((await order()).id, 'The key store was away.');

  await createCertificateViewer(api, 'one-ca', [second.serial]);
  await createApiUser(
    api.store,
    'auditor',
    PASSWORD,
    { ...NO_PERMISSIONS, viewCertificate: true, viewAuditLog: true, useAdmin: true },
    { bcryptCost: 4 },
  );
  await createApiUser(
    api.store,
    'ca-viewer',
    PASSWORD,
    { ...NO_PERMISSIONS, viewCertificateAuthority: true, useAdmin: true },
    { bcryptCost: 4 },
  );
}, 120_000);

afterAll(async () => {
  await f?.close();
});

describe('dashboard', () => {
  test('certificates by CA: one row per viewable CA, each figure the length of the list it links to; pending and failed orders', async () => {
    const alice = await f.signIn('alice');
    const rows = perCaRows((await alice.get(ADMIN).expect(200)).text);
    expect(rows.map((r) => r.ca)).toEqual(expect.arrayContaining(['root', 'child', 'second']));
    const figures = Object.fromEntries(rows.map((r) => [r.ca, r.cells.map((c) => c.figure)]));
    // valid, expiring within 30 days, expired, revoked, pending orders, failed orders
    expect(figures.child).toEqual([2, 1, 1, 1, 1, 1]);
    expect(figures.second).toEqual([2, 1, 1, 0, 0, 0]);
    expect(figures.root).toEqual([0, 0, 0, 0, 0, 0]);
    for (const ca of [f.api.ca, second]) {
      const row = rows.find((r) => r.ca === ca.name);
      const links = row?.cells.slice(0, 4) ?? [];
      expect(links.map((c) => c.href)).toEqual(
        ['valid', 'expiring', 'expired', 'revoked'].map((status) => `${ADMIN}certs/?${new URLSearchParams({ ca: ca.serial, status })}`),
      );
      for (const cell of links) expect(await listedSerials(alice, cell.href as string)).toHaveLength(cell.figure);
    }
  });

  test('a user granted one CA sees only its row', async () => {
    const agent = await f.signIn('one-ca');
    const rows = perCaRows((await agent.get(ADMIN).expect(200)).text);
    expect(rows.map((r) => [r.ca, r.cells.map((c) => c.figure)])).toEqual([['second', [2, 1, 1, 0, 0, 0]]]);
  });

  test('recent events: the newest 10 audit records, each a link into the audit log, only with view_auditlog', async () => {
    const alice = await f.signIn('alice');
    const without = (await alice.get(ADMIN).expect(200)).text;
    expect(without).not.toContain('Recent events');
    expect(without).not.toContain(`${ADMIN}audit/`);

    const auditor = await f.signIn('auditor');
    const page = (await auditor.get(ADMIN).expect(200)).text;
    const section = page.slice(page.indexOf('<h2>Recent events</h2>'));
    expect(page).toContain('<h2>Recent events</h2>');
    const newest = (await f.api.db.knex('ca_api_events').orderBy('id', 'desc').limit(10).pluck('id')).map(Number);
    expect(newest).toHaveLength(10);
    const links = [...section.matchAll(/<td><a href="\/admin\/audit\/\?before=(\d+)">(\d+)<\/a><\/td>/g)];
    expect(links.map((m) => Number(m[2]))).toEqual(newest);
    expect(links.map((m) => Number(m[1]))).toEqual(newest.map((id) => id + 1));
    // The link opens the audit log (newest first) at that record.
    const at = (await auditor.get(`${ADMIN}audit/?before=${newest[3] + 1}`).expect(200)).text;
    expect(auditIds(at)[0]).toBe(newest[3]);
  });
});

describe('audit log filters', () => {
  const oldestFirst = async (where: (q: ReturnType<AdminFixture['api']['db']['knex']>) => void) => {
    const q = f.api.db.knex('ca_api_events').orderBy('id').select('id');
    where(q);
    return ((await q) as { id: number | string }[]).map((r) => Number(r.id));
  };

  test('by event type, by actor (exactly) and both, with the CA filter; each page lists exactly the matching records, newest first', async () => {
    const auditor = await f.signIn('auditor');
    const page = async (query: Record<string, string>) => (await auditor.get(`${ADMIN}audit/`).query(query).expect(200)).text;
    const ids = async (where: Parameters<typeof oldestFirst>[0]) => (await oldestFirst(where)).reverse();

    const typeSelect = await page({});
    expect(typeSelect).toMatch(/<select id="type" name="type">\s*<option value="">All types<\/option>/);
    expect(typeSelect).toContain('<option value="certificate.revoked" >certificate.revoked</option>');

    const issued = await ids((q) => q.where({ type: 'certificate.issued' }));
    expect(issued.length).toBeGreaterThanOrEqual(5);
    expect(auditIds(await page({ type: 'certificate.issued' }))).toEqual(issued);
    expect(await page({ type: 'certificate.issued' })).toContain('<option value="certificate.issued"  selected>');

    const byAlice = await ids((q) => q.whereRaw(`actor->>'name' = 'alice'`));
    expect(byAlice).toHaveLength(2); // newest first: the revocation, then the certificate issued to be revoked
    expect(auditIds(await page({ actor: 'alice' }))).toEqual(byAlice);
    expect(auditIds(await page({ actor: 'alice', type: 'certificate.revoked' }))).toEqual(byAlice.slice(0, 1));
    expect(auditIds(await page({ actor: 'alice', type: 'certificate.revoked', ca: second.serial }))).toEqual([]);
    expect(auditIds(await page({ actor: 'alice', type: 'certificate.revoked', ca: f.api.ca.serial }))).toEqual(byAlice.slice(0, 1));
    for (const near of ['Alice', 'ali', 'alice*']) expect(await page({ actor: near })).toContain('No record matches.');
    // An unknown type is no filter (the select offers the known ones), as the certificate list's status.
    expect(auditIds(await page({ type: 'no.such.type', actor: 'alice' }))).toEqual(byAlice);
    // The next page keeps the filters.
    const all = await ids(() => undefined);
    if (all.length > 100) {
      expect(await page({})).toMatch(/rel="next"/);
    }
    expect(await page({ type: 'certificate.issued', actor: 'alice' })).not.toMatch(/rel="next"/);
  });
});

describe('issue page', () => {
  test('the profile select names each profile with its description and lifetime', async () => {
    const alice = await f.signIn('alice');
    const page = (await alice.get(`${ADMIN}issue`).expect(200)).text;
    for (const [name, profile] of defaultProfiles()) {
      const days = profile.expiresMs / 86_400_000;
      expect(page).toMatch(
        new RegExp(`<option value="${name}"[^>]*>${name}: ${profile.description.replace(/[.]/g, '\\.')} \\(${days} days\\)</option>`),
      );
    }
  });

  test('Preview shows what Sign then signs — subject, names, extensions in words, not after, hash — and writes nothing', async () => {
    const alice = await f.signIn('alice');
    const form = (await alice.get(`${ADMIN}issue`).expect(200)).text;
    const csr = csrWithNames();
    const before = { certificates: await count('ca_api_certificates'), events: await count('ca_api_events') };
    const fields = { _csrf: formToken(form), ca: f.api.ca.serial, profile: 'webserver', csr, days: '' };
    const preview = await alice
      .post(`${ADMIN}issue`)
      .type('form')
      .send({ ...fields, subject: '', san: '', action: 'preview' })
      .expect(200);
    expect({ certificates: await count('ca_api_certificates'), events: await count('ca_api_events') }).toEqual(before);

    const shown = preview.text.slice(preview.text.indexOf('<section class="preview"'), preview.text.indexOf('</section>'));
    expect(shown).toContain('Preview: what "Sign" would sign');
    expect(shown).toContain('Nothing has been signed or stored yet.');
    expect(shown).toMatch(/<dt>Subject<\/dt>\s*<dd>CN=preview\.example\.com,O=Preview Org<\/dd>/);
    expect(shown).toMatch(
      /<dt>Subject alternative names<\/dt>\s*<dd>DNS: preview\.example\.com<br \/>DNS: www\.preview\.example\.com<br \/>IP: 10\.9\.8\.7<br \/><\/dd>/,
    );
    expect(shown).toMatch(/<dt>Not after<\/dt>\s*<dd>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/dd>/);
    expect(shown).toMatch(/<dt>Signature hash<\/dt>\s*<dd>SHA-\d+<\/dd>/);
    expect(shown).toMatch(/<dt>Profile<\/dt>\s*<dd>webserver<\/dd>/);
    // The form now holds the CSR's names, for Sign.
    expect(preview.text).toContain('value="CN=preview.example.com,O=Preview Org"');
    expect(preview.text).toContain('DNS:preview.example.com\nDNS:www.preview.example.com\nIP:10.9.8.7</textarea>');

    // Sign the same form: the certificate's page shows the extensions, subject and hash the preview showed.
    const signed = await alice
      .post(`${ADMIN}issue`)
      .type('form')
      .send({
        ...fields,
        subject: 'CN=preview.example.com,O=Preview Org',
        san: 'DNS:preview.example.com\nDNS:www.preview.example.com\nIP:10.9.8.7',
        action: 'sign',
      })
      .expect(303);
    const cert = (await alice.get(signed.headers.location).expect(200)).text;
    const extensionTable = (page: string) => {
      const at = page.indexOf('<caption class="visually-hidden">\n      Extensions');
      return page.slice(at, page.indexOf('</table>', at));
    };
    expect(extensionTable(shown).length).toBeGreaterThan(100);
    expect(extensionTable(cert)).toBe(extensionTable(shown));
    const hash = /<dt>Signature hash<\/dt>\s*<dd>([^<]+)<\/dd>/;
    expect(hash.exec(cert)?.[1]).toBe(hash.exec(shown)?.[1]);
    expect(cert).toContain('CN=preview.example.com,O=Preview Org');
    expect(await count('ca_api_certificates')).toBe(before.certificates + 1);
  });

  test('the CA select preselects no CA, or the only issuing CA offered — never a root; Sign without a CA is a message', async () => {
    const chosen = (page: string) => [...page.matchAll(/<option value="([^"]*)"\s*selected>/g)].map((m) => m[1]);
    const caOptions = (page: string) =>
      page.slice(page.indexOf('<select id="ca"'), page.indexOf('</select>', page.indexOf('<select id="ca"')));
    // alice may sign with root, child and second: two issuing CAs, so none is chosen for her.
    const alice = await f.signIn('alice');
    const form = (await alice.get(`${ADMIN}issue`).expect(200)).text;
    expect(chosen(caOptions(form))).toEqual(['']);
    expect(caOptions(form)).toContain('<option value="" selected>Choose a CA</option>');
    expect(caOptions(form)).toContain(`<option value="${f.api.root.serial}" >root (root)</option>`);
    // A user who may sign with the root and one intermediate: the intermediate.
    const grant = { ...NO_PERMISSIONS, useAdmin: true };
    await createApiUser(
      f.api.store,
      'two-cas',
      PASSWORD,
      { ...grant, signCertificate: [f.api.root.serial, f.api.ca.serial] },
      { bcryptCost: 4 },
    );
    const twoCas = await f.signIn('two-cas');
    expect(chosen(caOptions((await twoCas.get(`${ADMIN}issue`).expect(200)).text))).toEqual([f.api.ca.serial]);
    // With the root alone: still nothing chosen.
    await createApiUser(f.api.store, 'root-only', PASSWORD, { ...grant, signCertificate: [f.api.root.serial] }, { bcryptCost: 4 });
    const rootOnly = await f.signIn('root-only');
    expect(chosen(caOptions((await rootOnly.get(`${ADMIN}issue`).expect(200)).text))).toEqual(['']);
    // A link naming a CA not offered chooses none either (a browser would show the first, the root).
    expect(chosen(caOptions((await alice.get(`${ADMIN}issue?ca=0A0B`).expect(200)).text))).toEqual(['']);

    // Sign with the select left at "Choose a CA": a message, nothing signed.
    const before = await count('ca_api_certificates');
    const res = await alice
      .post(`${ADMIN}issue`)
      .type('form')
      .send({
        _csrf: formToken(form),
        ca: '',
        profile: 'webserver',
        csr: csrWithNames(),
        subject: 'CN=x.example',
        san: 'DNS:x.example',
        action: 'sign',
      })
      .expect(400);
    expect(res.text).toContain('Choose the certificate authority to sign with.');
    expect(await count('ca_api_certificates')).toBe(before);
  });

  test('a server certificate without subjectAltName is signed only once the user ticks that they mean it', async () => {
    const alice = await f.signIn('alice');
    const form = (await alice.get(`${ADMIN}issue`).expect(200)).text;
    const fields = {
      _csrf: formToken(form),
      ca: f.api.ca.serial,
      csr: csrWithNames(),
      subject: 'CN=nosan.example',
      san: '',
      action: 'sign',
    };
    const before = await count('ca_api_certificates');
    for (const profile of ['webserver', 'server']) {
      const warned = await alice
        .post(`${ADMIN}issue`)
        .type('form')
        .send({ ...fields, profile })
        .expect(400);
      expect(warned.text).toContain(`Profile ${profile} makes a server certificate, and it has no subjectAltName`);
      expect(warned.text).toMatch(/<input type="checkbox" id="no-san" name="no_san" value="on" \/>/);
      expect(warned.text).toContain('value="CN=nosan.example"'); // the form as it was, to add the names
    }
    expect(await count('ca_api_certificates')).toBe(before);
    // Ticked: signed as asked.
    const signed = await alice
      .post(`${ADMIN}issue`)
      .type('form')
      .send({ ...fields, profile: 'webserver', no_san: 'on' })
      .expect(303);
    expect((await alice.get(signed.headers.location).expect(200)).text).toContain('CN=nosan.example');
    // A client certificate needs no subjectAltName: no question asked.
    await alice
      .post(`${ADMIN}issue`)
      .type('form')
      .send({ ...fields, profile: 'client' })
      .expect(303);
    expect(await count('ca_api_certificates')).toBe(before + 2);
  });

  test('a preview of bad input is a message and writes nothing', async () => {
    const alice = await f.signIn('alice');
    const form = (await alice.get(`${ADMIN}issue`).expect(200)).text;
    const before = await count('ca_api_certificates');
    const res = await alice
      .post(`${ADMIN}issue`)
      .type('form')
      .send({
        _csrf: formToken(form),
        ca: f.api.ca.serial,
        profile: 'webserver',
        csr: csrWithNames(),
        subject: 'CN=x',
        san: 'DNS:bad name!',
        action: 'preview',
      })
      .expect(400);
    expect(res.text).toContain('role="alert"');
    expect(res.text).not.toContain('<section class="preview"');
    expect(await count('ca_api_certificates')).toBe(before);
  });

  test('the CSR-file script: a file of the package at a hashed URL, cached for a year, under a CSP without inline script', async () => {
    const alice = await f.signIn('alice');
    const page = await alice.get(`${ADMIN}issue`).expect(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    const scripts = [...page.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(1);
    expect(scripts[0][1]).toBe(` src="${ADMIN}assets/csr-file.js?v=${CSR_FILE_SCRIPT_HASH}" defer`);
    expect(scripts[0][2]).toBe(''); // nothing inline
    expect(page.text).not.toMatch(/\son[a-z]+=|\sstyle=/i);
    // Without JavaScript the file field stays hidden, and it has no name: a form sent without the script carries no file.
    expect(page.text).toMatch(/<div class="field" hidden>\s*<label for="csr-file">/);
    expect(page.text).toMatch(/<input id="csr-file" type="file" accept="[^"]+" \/>/);

    const asset = await request(f.app).get(`${ADMIN}assets/csr-file.js?v=${CSR_FILE_SCRIPT_HASH}`).expect(200); // no session needed
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['x-content-type-options']).toBe('nosniff');
    expect(asset.text).toBe(CSR_FILE_SCRIPT);
    expect(CSR_FILE_SCRIPT_HASH).toMatch(/^[0-9a-f]{16}$/);
    await request(f.app).head(`${ADMIN}assets/csr-file.js`).expect(200);
  });
});

describe('an ACME account', () => {
  test('its page lists its orders — status, names, expiry, the certificate once issued; 403 without view_certificateauthority', async () => {
    const { api } = f;
    const acme = (api.store as unknown as { acme: AcmeStore }).acme;
    const { account } = await acme.createAccount({
      caId: api.ca.id,
      jwk: { kty: 'EC', crv: 'P-256', x: 'x-of-the-orders-test', y: 'y-of-the-orders-test' },
      thumbprint: 'thumbprint-of-the-orders-test',
      contact: ['mailto:orders@example.com'],
      termsOfServiceAgreed: true,
    });
    const newOrder = (names: string[]) =>
      acme.createOrder({
        accountId: account.id,
        caId: api.ca.id,
        expires: new Date(Date.now() + HOUR),
        notBefore: null,
        notAfter: null,
        identifiers: names.map((value) => ({ type: 'dns' as const, value })),
        authorizations: names.map((value) => ({
          identifier: { type: 'dns' as const, value },
          wildcard: false,
          challenges: [{ type: 'http-01' as const, token: `token-${value}` }],
        })),
      });
    // One order issued the way the store's state machine goes: validated, finalized, completed.
    const issued = await newOrder(['issued.acme.example']);
    if (!issued) throw new Error('no order');
    const authorization = await acme.findAuthorization(api.ca.id, issued.authorizations[0]);
    const challenge = authorization?.challenges[0];
    const started = await acme.startValidation(
      { caId: api.ca.id, slug: challenge?.slug as string, accountId: account.id },
      'test',
      60_000,
      new Date(),
      onChallengeStart(),
    );
    expect(await record(acme, started, { kind: 'valid', at: new Date() }, 'test')).toBe(true);
    expect(await startIssuance(acme, issued.id, 'test', signRequest())).toBe(true);
    const certificate = await acme.completeIssuance(onIssued(issued.id), copyOf(model, api.ca.id, 'ACE00001', -1, 30));
    const pending = await newOrder(['a.acme.example', 'b.acme.example']);
    if (!pending) throw new Error('no order');

    const url = `${ADMIN}cas/${api.ca.serial}/acme/${account.slug}/`;
    const viewer = await f.signIn('ca-viewer');
    const list = (await viewer.get(`${ADMIN}cas/${api.ca.serial}/acme/`).expect(200)).text;
    expect(list).toContain(`<a href="${url}">${account.slug}</a>`);
    const page = (await viewer.get(url).expect(200)).text;
    expect(page).toContain('mailto:orders@example.com');
    const rows = [
      ...page.matchAll(
        /<td class="mono">([\w-]+)<\/td>\s*<td>(\w+)<\/td>\s*<td>([^<]*)<\/td>\s*<td>([^<]+)<\/td>\s*<td class="mono">\s*([\s\S]*?)\s*<\/td>/g,
      ),
    ];
    expect(rows.map((r) => [r[1], r[2], r[3]])).toEqual([
      [pending.slug, 'pending', 'a.acme.example, b.acme.example'], // newest first
      [issued.slug, 'valid', 'issued.acme.example'],
    ]);
    expect(rows[0][4]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(rows[0][5]).toBe('(none)');
    expect(rows[1][5]).toBe(`<a href="${ADMIN}certs/${api.ca.serial}/${certificate.serial}/">AC:E0:00:01</a>`);

    await viewer.get(`${ADMIN}cas/${api.ca.serial}/acme/no-such-account/`).expect(404);
    const other = await f.signIn('one-ca'); // may view certificates of a CA, not the CA
    await other.get(url).expect(403);
    await other.get(`${ADMIN}cas/${api.ca.serial}/acme/no-such-account/`).expect(403); // 403 before 404
  });
});
