/**
 * An operator's session in a real browser (Chromium) against the example server (docs/guides/admin-interface.md):
 * sign in as the demo user, find a certificate by a fragment of its subjectAltName,
 * open it, download it and `openssl verify` it to the root, revoke it with a reason — `openssl ocsp`
 * against the server then answers `revoked` —, issue a certificate from a pasted CSR and verify it, edit
 * the CA's CRL URL and see it in the REST API, deactivate an ACME client's account (the client is then
 * refused), verify the audit log, sign out, and find the session gone. Every page is
 * checked: no console error or CSP violation, no failed request, axe finds nothing serious.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Browser } from 'playwright-core';
import { opensslCsr } from '../api/fixture';
import { WireClient } from '../helpers/acme-wire';
import { startChildServer, stopChild, type ChildServer } from '../examples/child-server';
import { accessibilityProblems, describeInBrowser, launchBrowser, newContext, screenshot, watchProblems } from '../helpers/browser';

describeInBrowser('the admin interface in Chromium, against the example server', () => {
  let dir: string;
  let server: ChildServer;
  let browser: Browser;
  let admin: string;
  const SAN = 'payroll-db.internal.example';
  let auth: { Authorization: string };

  /** A certificate signed through the REST API, as a service would get one; resolves once its order is done. */
  async function signThroughApi(cn: string, names: string[]): Promise<void> {
    const sign = await fetch(`${server.apiRoot}/ca/${server.caSerial}/sign/`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        csr: opensslCsr('EC').csr,
        subject: [{ oid: 'CN', value: cn }],
        extensions: [{ type: 'subject_alternative_name', value: names.map((value) => ({ type: 'DNS', value })) }],
      }),
    });
    const { slug } = (await sign.json()) as { slug: string };
    for (let i = 0; i < 100; i++) {
      const order = (await (await fetch(`${server.apiRoot}/ca/${server.caSerial}/orders/${slug}/`, { headers: auth })).json()) as {
        status: string;
      };
      if (order.status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-browser-'));
    fs.mkdirSync(path.join(dir, 'data'));
    [server, browser] = await Promise.all([
      startChildServer({ CA_DATA_DIR: path.join(dir, 'data'), CA_ENABLE_ACME: 'true' }),
      launchBrowser(),
    ]);
    const printed = /^Admin interface: (\S+)/m.exec(server.output());
    if (!printed) throw new Error(`the server did not print the admin URL:\n${server.output()}`);
    admin = printed[1];
    // A certificate to find, issued through the REST API as a service would get one.
    auth = { Authorization: `Basic ${Buffer.from(`${server.username}:${server.password}`).toString('base64')}` };
    await signThroughApi(SAN, [SAN]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (server) await stopChild(server.child);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("an operator's session: find, verify, revoke, issue, edit a CA, deactivate an ACME account, verify the audit log", async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const problems = watchProblems(page);
    const checkPage = async (name: string) => {
      expect(await accessibilityProblems(page)).toEqual([]);
      await screenshot(page, name);
    };

    await page.goto(admin);
    await expect(page.getByRole('heading', { name: 'Sign in' }).count()).resolves.toBe(1);
    await checkPage('01-sign-in');
    await page.getByLabel('Username').fill(server.username);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Wrong username or password.');
    problems.splice(0); // the 400 of the wrong password, provoked
    await page.getByLabel('Password').fill(server.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await checkPage('02-dashboard');
    const session = (await context.cookies()).find((c) => c.name === 'ca_admin');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    await page.getByLabel('Find a certificate').fill('payroll-db');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('heading', { name: 'Certificates' }).waitFor();
    await checkPage('03-search');
    await page.getByRole('link', { name: SAN }).click();
    await page.getByRole('heading', { name: new RegExp(SAN) }).waitFor();
    expect(await page.locator('main').textContent()).toContain(`DNS: ${SAN}`);
    await checkPage('04-certificate');

    // The downloads, as the browser saves them; openssl checks the chain.
    const save = async (link: string, file: string) => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: link }).click()]);
      await download.saveAs(path.join(dir, file));
      return fs.readFileSync(path.join(dir, file), 'utf8');
    };
    await save('Download PEM', 'leaf.pem');
    const chain = (await save('Download chain (PEM)', 'chain.pem')).match(
      /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g,
    ) as string[];
    fs.writeFileSync(path.join(dir, 'issuer.pem'), chain[1]);
    fs.writeFileSync(path.join(dir, 'root.pem'), chain[2]);
    fs.writeFileSync(path.join(dir, 'cas.pem'), chain[1] + chain[2]);
    const verify = execFileSync('openssl', ['verify', '-CAfile', 'root.pem', '-untrusted', 'issuer.pem', 'leaf.pem'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(verify).toContain('leaf.pem: OK');
    const ocsp = () =>
      execFileSync('openssl', ['ocsp', '-issuer', 'issuer.pem', '-cert', 'leaf.pem', '-url', ocspUrl, '-CAfile', 'cas.pem'], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const ocspUrl = execFileSync('openssl', ['x509', '-in', 'leaf.pem', '-noout', '-ocsp_uri'], { cwd: dir, encoding: 'utf8' }).trim();
    expect(ocsp()).toContain('leaf.pem: good');

    await page.getByRole('link', { name: 'Revoke…' }).click();
    await page.getByRole('heading', { name: `Revoke ${SAN}` }).waitFor();
    await checkPage('05-revoke');
    await page.getByLabel('Reason').selectOption('key_compromise');
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Revoked: key compromise').first().waitFor();
    await checkPage('06-revoked');
    expect(ocsp()).toMatch(/leaf\.pem: revoked[\s\S]*Reason: keyCompromise/);

    // Issue from a pasted CSR: "Read CSR" fills the form from it, "Sign" issues, openssl verifies.
    await page.getByRole('link', { name: 'Issue' }).click();
    await page.getByRole('heading', { name: 'Issue a certificate' }).waitFor();
    await page.getByLabel('Certificate signing request (PEM)').fill(opensslCsr('EC', 'pasted.internal.example').csr);
    await page.getByRole('button', { name: 'Read CSR' }).click();
    await expect(page.getByLabel(/^Subject \(RFC 4514/).inputValue()).resolves.toBe('CN=pasted.internal.example');
    await page.getByLabel(/^Subject alternative names/).fill('DNS:pasted.internal.example');
    await checkPage('07-issue');
    await page.getByRole('button', { name: 'Sign', exact: true }).click();
    await page.getByRole('heading', { name: /pasted\.internal\.example/ }).waitFor();
    await save('Download PEM', 'pasted.pem');
    const pasted = execFileSync('openssl', ['verify', '-CAfile', 'root.pem', '-untrusted', 'issuer.pem', 'pasted.pem'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(pasted).toContain('pasted.pem: OK');

    // Resign it from its page: a new certificate, same names, another serial; openssl verifies it.
    const firstSerial = page.url();
    await page.getByRole('link', { name: 'Resign…' }).click();
    await page.getByRole('heading', { name: 'Resign pasted.internal.example' }).waitFor();
    await page.getByRole('button', { name: 'Sign again' }).click();
    await page.getByRole('heading', { name: /pasted\.internal\.example/ }).waitFor();
    expect(page.url()).not.toBe(firstSerial);
    await save('Download PEM', 'resigned.pem');
    expect(
      execFileSync('openssl', ['verify', '-CAfile', 'root.pem', '-untrusted', 'issuer.pem', 'resigned.pem'], {
        cwd: dir,
        encoding: 'utf8',
      }),
    ).toContain('resigned.pem: OK');

    // A CSR read from a DER file by the page's script (under the CSP) equals openssl's PEM; Preview signs nothing.
    const fileCsr = opensslCsr('EC', 'from-file.internal.example').csr;
    fs.writeFileSync(path.join(dir, 'file.csr.pem'), fileCsr);
    execFileSync('openssl', ['req', '-in', 'file.csr.pem', '-outform', 'DER', '-out', 'file.der'], { cwd: dir });
    await page.getByRole('link', { name: 'Issue' }).click();
    await page.locator('#csr-file').waitFor({ state: 'visible' });
    await page.locator('#csr-file').setInputFiles(path.join(dir, 'file.der'));
    await page.locator('#csr-file[data-loaded="true"]').waitFor({ state: 'attached' });
    await expect(page.getByLabel('Certificate signing request (PEM)').inputValue()).resolves.toBe(fileCsr.trim());
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('Nothing has been signed or stored yet.').waitFor();
    expect(await page.locator('main').textContent()).toContain('CN=from-file.internal.example');
    await checkPage('07b-issue-preview');

    // Edit the CA's CRL URL; the REST API shows it.
    await page.goto(`${admin}cas/${server.caSerial}/`);
    await page.getByLabel(/^CRL distribution points/).fill('http://crl.internal.example/intermediate.crl');
    await checkPage('08-ca');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    const ca = (await (await fetch(`${server.apiRoot}/ca/${server.caSerial}/`, { headers: auth })).json()) as {
      sign_crl_distribution_points: { value: { full_name: { value: string }[] }[] };
    };
    expect(ca.sign_crl_distribution_points.value[0].full_name[0].value).toBe('http://crl.internal.example/intermediate.crl');

    // An enrolment endpoint for the CA's phones: added from the CA's page, its challenge shown once.
    await page.getByRole('link', { name: 'Add, edit or delete enrolment endpoints' }).click();
    await page.getByLabel(/^Label/).fill('browser-phones');
    await page.getByLabel('Names allowed', { exact: false }).fill('phones.internal.example');
    await page.getByRole('button', { name: 'Add' }).click();
    expect(await page.locator('#challenge').textContent()).toMatch(/^[0-9a-f]{40}$/);
    await checkPage('08b-enrolment-endpoint-challenge');
    await page.getByRole('link', { name: 'Back to the enrolment endpoints' }).click();
    await page.getByRole('link', { name: 'Edit SCEP browser-phones' }).waitFor();
    await checkPage('08c-enrolment-endpoints');
    await page.goto(`${admin}cas/${server.caSerial}/`);

    // An ACME client registers; the operator deactivates its account from the CA's page.
    const client = await new WireClient(`${new URL(server.apiRoot).origin}/django_ca/acme/directory/${server.caSerial}/`).init();
    expect((await client.register({ contact: ['mailto:robot@internal.example'] })).status).toBe(201);
    await page.getByRole('link', { name: 'ACME accounts' }).click();
    await page.getByRole('heading', { name: /^ACME accounts of/ }).waitFor();
    await checkPage('09-acme');
    await page.getByRole('button', { name: /^Deactivate/ }).click();
    await page.getByRole('cell', { name: 'deactivated' }).waitFor();
    const refused = await client.post(client.kid as string, undefined);
    expect(refused.status).toBe(401);

    // The audit log names the operator's changes; its chain verifies.
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    expect(await page.locator('main').textContent()).toMatch(/acme\.account\.deactivated\s*api_user demo over admin/);
    await page.getByRole('button', { name: 'Verify the chain' }).click();
    await page.getByText(/The chain is intact: \d+ records/).waitFor();
    await checkPage('10-audit');
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users', exact: true }).waitFor();
    await checkPage('11-users');
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('URL').fill('https://hooks.internal.example/ca');
    await page.getByRole('button', { name: 'Add' }).click();
    await expect(page.locator('#secret').textContent()).resolves.toMatch(/^whsec_/);
    await checkPage('12-webhook-secret');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await context.cookies()).find((c) => c.name === 'ca_admin')).toBeUndefined();
    // The old session is gone on the server too: its cookie, replayed, is sent to the sign-in page.
    const replay = await fetch(admin, { headers: { Cookie: `ca_admin=${session?.value}` }, redirect: 'manual' });
    expect(replay.status).toBe(303);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  test('at 1280 CSS pixels the audit log, the recent events, the certificate list, the profiles and the signatures fit, long values and all (nothing scrolls sideways)', async () => {
    // Long values without a space to break at: a 64-character common name (in the record's data), long names, colon serials.
    await signThroughApi(`long-${'x'.repeat(47)}.example.org`, [`${'a'.repeat(63)}.${'b'.repeat(63)}.example.org`]);
    const context = await newContext(browser); // 1280 × 800
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(admin);
    await page.getByLabel('Username').fill(server.username);
    await page.getByLabel('Password').fill(server.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const pages = [
      '',
      'audit/',
      'audit/?type=certificate.issued',
      'certs/?status=all',
      'profiles/',
      'signatures/',
      'signatures/?state=issued',
    ];
    const widths: Record<string, number> = {};
    for (const at of pages) {
      await page.goto(`${admin}${at}`);
      widths[at] = (await page.evaluate('document.documentElement.scrollWidth')) as number;
      if (at === 'profiles/') {
        await page.getByRole('heading', { name: 'Profiles' }).waitFor();
        expect(await accessibilityProblems(page)).toEqual([]);
        await screenshot(page, '15-profiles');
      }
      if (at === 'signatures/') {
        await page.getByRole('heading', { name: 'Signatures' }).waitFor();
        expect(await page.locator('main tbody tr').count()).toBeGreaterThan(0);
        expect(await accessibilityProblems(page)).toEqual([]);
        await screenshot(page, '17-signatures');
      }
    }
    expect(Object.entries(widths).filter(([, width]) => width > 1280)).toEqual([]);
    await page.goto(`${admin}audit/?type=certificate.issued`);
    expect(await page.locator('main').textContent()).toContain('x'.repeat(47));
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, '16-audit-1280');
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  test('on a phone (390 CSS pixels wide) every page fits: no page scrolls sideways, nothing is hidden', async () => {
    const context = await newContext(browser, 'phone');
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(admin);
    await page.getByLabel('Username').fill(server.username);
    await page.getByLabel('Password').fill(server.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    // The pages, and one certificate's page (the first of the list).
    await page.goto(`${admin}certs/?status=all`);
    const certificate = (await page.locator('main table a').first().getAttribute('href')) as string;
    const pages = [
      '',
      'certs/?status=all',
      certificate.slice(new URL(admin).pathname.length),
      'issue',
      'profiles/',
      `cas/${server.caSerial}/`,
      'audit/',
      'signatures/',
      'users/',
      'webhooks/',
    ];
    const overflow: Record<string, number> = {};
    for (const at of pages) {
      await page.goto(`${admin}${at}`);
      overflow[at] = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
    }
    expect(overflow).toEqual(Object.fromEntries(pages.map((at) => [at, 0])));
    await screenshot(page, '13-phone-webhooks');
    // Every column of the list is shown (a wide table scrolls inside itself).
    await page.goto(`${admin}certs/?status=all`);
    expect(await page.evaluate("[...document.querySelectorAll('th')].filter((th) => th.offsetParent === null).length")).toBe(0);
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, '14-phone-certificates');
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
