/**
 * The ACME options of init_ca, import_ca and edit_ca, view_ca's ACME section, and CA_ENABLE_ACME=false
 * hiding and refusing them (docs/COMPATIBILITY.md §4.4).
 */
import * as path from 'path';
import { hasAcmeStore, type CaRecord } from '../../lib/ports';
import { testDatabaseTargets } from '../helpers/database';
import { cliFixture, cliRunner } from './helpers';

/** The --acme-* options are offered only with ACME switched on, as the server serves it only then. */
const ACME_ON = { CA_ENABLE_ACME: 'true' };
import { openssl } from './openssl';

const ACME_FLAGS = [
  '--acme-enable',
  '--acme-disable',
  '--acme-enable-account-registration',
  '--acme-disable-account-registration',
  '--acme-profile',
  '--acme-contact-optional',
  '--acme-contact-required',
  '--acme-eab-required',
  '--acme-eab-optional',
  '--acme-allow',
  '--acme-deny',
  '--acme-clear-names',
];

/** The value each option that takes one is given here. */
const VALUES: Readonly<Record<string, string[]>> = {
  '--acme-profile': ['webserver'],
  '--acme-allow': ['example.internal'],
  '--acme-deny': ['10.0.0.0/8'],
};

/** The pairs, each with the error both at once give. */
const PAIRS: [string, string][] = [
  ['--acme-enable', '--acme-disable'],
  ['--acme-enable-account-registration', '--acme-disable-account-registration'],
  ['--acme-contact-required', '--acme-contact-optional'],
  ['--acme-eab-required', '--acme-eab-optional'],
];

const acmeFields = (ca: CaRecord | null) =>
  ca && { enabled: ca.acmeEnabled, registration: ca.acmeRegistration, profile: ca.acmeProfile, requiresContact: ca.acmeRequiresContact };

/** The lines from `ACMEv2 support:` up to the next section. */
const acmeSection = (text: string) => /^ACMEv2 support:\n(?:\* .*\n)*/m.exec(text)?.[0] ?? null;

describe.each(testDatabaseTargets())('ACME options on $name', (target) => {
  const f = cliFixture(target, 'acme-options-', ACME_ON);
  let n = 0;
  /** A fresh CA name per call, so each test owns its CAs. */
  const fresh = () => `Acme${++n}`;
  const init = (name: string, flags: string[]) =>
    f.cli(['init_ca', '--key-type', 'Ed25519', '--no-default-hostname', ...flags, name, `CN=${name}.example.com`]);
  const fields = async (name: string) => acmeFields(await f.db.store.findCaByName(name));

  it('init_ca without them: the model defaults, and view_ca says ACME is off', async () => {
    const name = fresh();
    expect((await init(name, [])).stderr).toBe('');
    expect(await fields(name)).toEqual({ enabled: false, registration: true, profile: 'webserver', requiresContact: true });
    const view = await f.cli(['view_ca', name, '--no-pem']);
    expect(acmeSection(view.stdout)).toBe('ACMEv2 support:\n* Enabled: False\n');
  });

  it('init_ca takes every one; view_ca prints them', async () => {
    const name = fresh();
    const r = await init(name, [
      '--acme-enable',
      '--acme-disable-account-registration',
      '--acme-profile',
      'client',
      '--acme-contact-optional',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await fields(name)).toEqual({ enabled: true, registration: false, profile: 'client', requiresContact: false });
    const view = await f.cli(['view_ca', name, '--no-pem']);
    expect(acmeSection(view.stdout)).toBe(
      'ACMEv2 support:\n* Enabled: True\n* Requires contact: False\n* Account registration: False\n* Profile: client\n' +
        '* External account binding: optional\n',
    );
    // init_ca's own text output shows the same.
    const other = fresh();
    const text = await init(other, ['--acme-enable', '--output-format', 'text', '--no-pem']);
    expect(acmeSection(text.stdout)).toBe(
      'ACMEv2 support:\n* Enabled: True\n* Requires contact: True\n* Account registration: True\n* Profile: webserver\n' +
        '* External account binding: optional\n',
    );
  });

  it.each(PAIRS)('init_ca and edit_ca refuse %s with %s, and change nothing', async (yes, no) => {
    const name = fresh();
    const r = await init(name, [yes, no]);
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: `Error: ${yes} and ${no} are mutually exclusive.\n` });
    expect(await f.db.store.findCaByName(name)).toBeNull();
    expect((await init(name, [])).code).toBe(0);
    const before = await fields(name);
    const edit = await f.cli(['edit_ca', name, yes, no, '--acme-profile', 'client']);
    expect(edit).toMatchObject({ code: 1, stderr: `Error: ${yes} and ${no} are mutually exclusive.\n` });
    expect(await fields(name)).toEqual(before);
  });

  it('--acme-profile must name a configured profile (CA_PROFILES adds one)', async () => {
    const name = fresh();
    const r = await init(name, ['--acme-profile', 'acme-only']);
    expect(r).toMatchObject({ code: 1, stderr: 'Error: acme-only: Profile is not defined.\n' });
    expect(await f.db.store.findCaByName(name)).toBeNull();
    const configured = cliRunner(f.db.store, { ...ACME_ON, CA_PROFILES: JSON.stringify({ 'acme-only': { description: 'ACME leaves' } }) });
    const ok = await configured([
      'init_ca',
      '--key-type',
      'Ed25519',
      '--no-default-hostname',
      '--acme-profile',
      'acme-only',
      name,
      `CN=${name}.example.com`,
    ]);
    expect(ok.stderr).toBe('');
    expect((await fields(name))?.profile).toBe('acme-only');
  });

  it('edit_ca changes what is given, leaves the rest', async () => {
    const name = fresh();
    await init(name, []);
    expect((await f.cli(['edit_ca', name, '--acme-enable', '--acme-contact-optional'])).stderr).toBe('');
    expect(await fields(name)).toEqual({ enabled: true, registration: true, profile: 'webserver', requiresContact: false });
    expect((await f.cli(['edit_ca', name, '--acme-disable-account-registration', '--acme-profile', 'server'])).stderr).toBe('');
    expect(await fields(name)).toEqual({ enabled: true, registration: false, profile: 'server', requiresContact: false });
    expect((await f.cli(['edit_ca', name, '--acme-disable', '--acme-contact-required', '--acme-enable-account-registration'])).stderr).toBe(
      '',
    );
    expect(await fields(name)).toEqual({ enabled: false, registration: true, profile: 'server', requiresContact: true });
  });

  it('import_ca takes them too', async () => {
    const name = fresh();
    const key = path.join(f.dir, `${name}.key`);
    const pem = path.join(f.dir, `${name}.pem`);
    openssl(['req', '-x509', '-newkey', 'ed25519', '-nodes', '-subj', `/CN=${name}`, '-days', '30', '-keyout', key, '-out', pem]);
    const r = await f.cli([
      'import_ca',
      '--acme-enable',
      '--acme-profile',
      'client',
      '--acme-eab-required',
      '--acme-allow',
      '10.0.0.0/8',
      name,
      key,
      pem,
    ]);
    expect(r.stderr).toBe('');
    expect(await fields(name)).toEqual({ enabled: true, registration: true, profile: 'client', requiresContact: true });
    // The policy options (test/cli/acme-policy.test.ts) too.
    const store = f.db.store;
    if (!hasAcmeStore(store)) throw new Error('the test store has no ACME capability');
    expect(await store.acme.policy((await store.findCaByName(name))!.id)).toEqual({ eabRequired: true, allow: ['10.0.0.0/8'], deny: [] });
  });

  it('every command that takes them lists them in --help', async () => {
    for (const command of ['init_ca', 'import_ca', 'edit_ca']) {
      const help = (await f.cli([command, '--help'])).stdout;
      for (const flag of ACME_FLAGS) expect({ command, flag, listed: help.includes(`${flag} `) }).toEqual({ command, flag, listed: true });
    }
    const initHelp = (await f.cli(['init_ca', '--help'])).stdout;
    // The defaults a new CA gets are marked, and only those.
    expect(initHelp.match(/^ +--acme-\S+ .*\(default\)$/gm)?.map((l) => l.trim().split(' ')[0])).toEqual([
      '--acme-disable',
      '--acme-enable-account-registration',
      '--acme-contact-required',
      '--acme-eab-optional',
    ]);
    expect(initHelp).toMatch(/--acme-profile <profile>\s+profile of the certificates issued through ACME \(default: webserver\)\n/);
  });

  describe('CA_ENABLE_ACME=false', () => {
    const off = () => cliRunner(f.db.store, { CA_ENABLE_ACME: 'false' });

    it('hides the options from --help and view_ca', async () => {
      for (const command of ['init_ca', 'import_ca', 'edit_ca']) expect((await off()([command, '--help'])).stdout).not.toContain('--acme');
      const name = fresh();
      expect((await off()(['init_ca', '--key-type', 'Ed25519', name, `CN=${name}.example.com`])).code).toBe(0);
      const view = await off()(['view_ca', name, '--no-pem']);
      expect(view.stdout).toContain('Terms of service:');
      expect(view.stdout).not.toContain('ACME');
      expect(await fields(name)).toEqual({ enabled: false, registration: true, profile: 'webserver', requiresContact: true });
    });

    it.each(ACME_FLAGS)('refuses %s with an error naming the setting', async (flag) => {
      const value = VALUES[flag] ?? [];
      const name = fresh();
      const r = await off()(['init_ca', '--key-type', 'Ed25519', flag, ...value, name, `CN=${name}.example.com`]);
      expect(r).toMatchObject({
        code: 1,
        stdout: '',
        stderr: `Error: ${flag}: ACME is disabled (set CA_ENABLE_ACME=true, as for the server, to use it).\n`,
      });
      expect(await f.db.store.findCaByName(name)).toBeNull();
      await init(name, []);
      const edit = await off()(['edit_ca', name, flag, ...value]);
      expect(edit).toMatchObject({
        code: 1,
        stderr: `Error: ${flag}: ACME is disabled (set CA_ENABLE_ACME=true, as for the server, to use it).\n`,
      });
    });

    it('takes the words the router takes; anything else is an error', async () => {
      expect((await f.cli(['--help'])).stdout).toMatch(/\n {2}CA_ENABLE_ACME {10}true shows the --acme-\* options/);
      // Unset, as for the server: off (docs/guides/acme.md).
      expect((await cliRunner(f.db.store)(['init_ca', '--help'])).stdout).not.toContain('--acme');
      expect((await cliRunner(f.db.store, { CA_ENABLE_ACME: 'off' })(['init_ca', '--help'])).stdout).not.toContain('--acme');
      expect((await cliRunner(f.db.store, { CA_ENABLE_ACME: 'yes' })(['init_ca', '--help'])).stdout).toContain('--acme-enable');
      const bad = await cliRunner(f.db.store, { CA_ENABLE_ACME: 'maybe' })(['list_cas']);
      expect(bad).toMatchObject({
        code: 1,
        stderr: 'Error: environment variable CA_ENABLE_ACME must be true/false, 1/0, yes/no or on/off (got "maybe")\n',
      });
    });
  });
});
