/**
 * A CA's ACME policy from init_ca and edit_ca (docs/guides/acme.md; import_ca in acme-options.test.ts):
 * `--acme-eab-required` / `--acme-eab-optional`, `--acme-allow` and `--acme-deny` (repeatable, each
 * list replacing the stored one, every entry checked and canonical), `--acme-clear-names`; view_ca's
 * lines for them; a bad entry or a store without ACME data refused with nothing written.
 */
import { checkNamePolicy } from '../../lib/acme/policy/names';
import type { AcmeIdentifier, Store } from '../../lib/ports';
import { hasAcmeStore } from '../../lib/ports';
import { testDatabaseTargets } from '../helpers/database';
import { cliFixture, cliRunner } from './helpers';

/** The lines from `ACMEv2 support:` up to the next section. */
const acmeSection = (text: string) => /^ACMEv2 support:\n(?:\* .*\n)*/m.exec(text)?.[0] ?? null;

const SECTION_HEAD = 'ACMEv2 support:\n* Enabled: True\n* Requires contact: True\n* Account registration: True\n* Profile: webserver\n';

/** Entries refused, each with why it is refused. */
const BAD_ENTRIES: [string, string][] = [
  ['-leading-hyphen.example', 'a label starts with a hyphen'],
  ['under_score.example', 'an underscore is not LDH'],
  ['*.example.internal', 'a wildcard: a suffix covers what is under it already'],
  ['.example.internal', 'an empty label'],
  ['a..example', 'an empty label'],
  ['', 'empty'],
  ['example.123', 'a last label of digits'],
  [`${'a'.repeat(64)}.example`, 'a label of 64 characters'],
  ['10.0.0.300', 'an IPv4 octet above 255'],
  ['10.1.0.0/8', 'host bits set'],
  ['10.0.0.0/33', 'a prefix longer than the address'],
  ['2001:db8::g', 'not hexadecimal'],
  ['fe80::1%eth0', 'a scope id'],
];

describe.each(testDatabaseTargets())('ACME policy options on $name', (target) => {
  const f = cliFixture(target, 'acme-policy-', { CA_ENABLE_ACME: 'true' });
  let n = 0;
  const fresh = () => `Policy${++n}`;
  const init = (name: string, flags: string[]) =>
    f.cli(['init_ca', '--key-type', 'Ed25519', '--no-default-hostname', ...flags, name, `CN=${name}.example.com`]);
  const acmeStore = () => {
    const store = f.db.store;
    if (!hasAcmeStore(store)) throw new Error('the test store has no ACME capability');
    return store.acme;
  };
  const policyOf = async (name: string) => acmeStore().policy((await f.db.store.findCaByName(name))!.id);
  const section = async (name: string) => acmeSection((await f.cli(['view_ca', name, '--no-pem'])).stdout);

  it('init_ca sets the policy; view_ca and init_ca show it', async () => {
    const name = fresh();
    const r = await init(name, [
      '--acme-enable',
      '--acme-eab-required',
      '--acme-allow',
      'example.internal',
      '--acme-allow',
      '10.0.0.0/8',
      '--acme-deny',
      'secret.example.internal',
      '--output-format',
      'text',
      '--no-pem',
    ]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(await policyOf(name)).toEqual({
      eabRequired: true,
      allow: ['example.internal', '10.0.0.0/8'],
      deny: ['secret.example.internal'],
    });
    const lines =
      SECTION_HEAD +
      '* External account binding: required\n* Names allowed: example.internal, 10.0.0.0/8\n* Names denied: secret.example.internal\n';
    expect(acmeSection(r.stdout)).toBe(lines);
    expect(await section(name)).toBe(lines);
  });

  it('a new CA without them: binding optional, no lists, and no list lines', async () => {
    const name = fresh();
    expect((await init(name, ['--acme-enable'])).stderr).toBe('');
    expect(await policyOf(name)).toEqual({ eabRequired: false, allow: [], deny: [] });
    expect(await section(name)).toBe(`${SECTION_HEAD}* External account binding: optional\n`);
  });

  it('entries are stored canonical and once, in the form the server matches', async () => {
    const name = fresh();
    const given = ['Example.Internal.', '2001:DB8:0:0::/32', '10.0.0.0/255.0.0.0', '192.0.2.7', 'example.internal', ' host.lan '];
    const r = await init(
      name,
      given.flatMap((entry) => ['--acme-allow', entry]),
    );
    expect(r.stderr).toBe('');
    const policy = await policyOf(name);
    expect(policy.allow).toEqual(['example.internal', '2001:db8::/32', '10.0.0.0/8', '192.0.2.7', 'host.lan']);
    const ids = (...values: [AcmeIdentifier['type'], string][]) => values.map(([type, value]) => ({ type, value }));
    expect(() =>
      checkNamePolicy(policy, ids(['dns', 'a.b.example.internal'], ['ip', '10.200.0.1'], ['ip', '2001:db8:ff::1'], ['ip', '192.0.2.7'])),
    ).not.toThrow();
    for (const outside of ids(['dns', 'example.com'], ['ip', '11.0.0.1'], ['ip', '192.0.2.8'], ['ip', '2001:db9::1'])) {
      expect(() => checkNamePolicy(policy, [outside])).toThrow(/does not issue/);
    }
  });

  it('edit_ca: each list given replaces its own, the other and the binding stay; --acme-clear-names empties both', async () => {
    const name = fresh();
    await init(name, ['--acme-enable', '--acme-allow', 'a.internal', '--acme-deny', 'x.a.internal']);
    const edit = async (flags: string[]) => expect((await f.cli(['edit_ca', name, ...flags])).stderr).toBe('');

    await edit(['--acme-allow', 'b.internal', '--acme-allow', 'c.internal']);
    expect(await policyOf(name)).toEqual({ eabRequired: false, allow: ['b.internal', 'c.internal'], deny: ['x.a.internal'] });
    await edit(['--acme-eab-required', '--acme-deny', '192.0.2.0/24']);
    expect(await policyOf(name)).toEqual({ eabRequired: true, allow: ['b.internal', 'c.internal'], deny: ['192.0.2.0/24'] });
    await edit(['--acme-contact-optional']);
    expect(await policyOf(name)).toEqual({ eabRequired: true, allow: ['b.internal', 'c.internal'], deny: ['192.0.2.0/24'] });
    await edit(['--acme-clear-names', '--acme-deny', 'bad.internal']);
    expect(await policyOf(name)).toEqual({ eabRequired: true, allow: [], deny: ['bad.internal'] });
    expect(await section(name)).toBe(
      'ACMEv2 support:\n* Enabled: True\n* Requires contact: False\n* Account registration: True\n* Profile: webserver\n' +
        '* External account binding: required\n* Names denied: bad.internal\n',
    );
    await edit(['--acme-clear-names', '--acme-eab-optional']);
    expect(await policyOf(name)).toEqual({ eabRequired: false, allow: [], deny: [] });
  });

  it('view_ca of a CA with ACME off shows the original two lines, whatever the policy', async () => {
    const name = fresh();
    await init(name, ['--acme-eab-required', '--acme-deny', 'example.com']);
    expect(await policyOf(name)).toEqual({ eabRequired: true, allow: [], deny: ['example.com'] });
    expect(await section(name)).toBe('ACMEv2 support:\n* Enabled: False\n');
  });

  it.each(BAD_ENTRIES)('%j is refused (%s): init_ca creates no CA, edit_ca changes nothing', async (entry) => {
    const name = fresh();
    const r = await init(name, ['--acme-enable', '--acme-allow', 'ok.internal', '--acme-allow', entry]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.startsWith(`Error: --acme-allow ${JSON.stringify(entry)}: not a`)).toBe(true);
    expect(await f.db.store.findCaByName(name)).toBeNull();

    await init(name, ['--acme-allow', 'ok.internal']);
    const before = { ca: (await f.db.store.findCaByName(name))!.acmeEnabled, policy: await policyOf(name) };
    const edit = await f.cli(['edit_ca', name, '--acme-enable', '--acme-eab-required', '--acme-clear-names', '--acme-deny', entry]);
    expect(edit.code).toBe(1);
    expect(edit.stderr.startsWith(`Error: --acme-deny ${JSON.stringify(entry)}: not a`)).toBe(true);
    expect({ ca: (await f.db.store.findCaByName(name))!.acmeEnabled, policy: await policyOf(name) }).toEqual(before);
  });

  it('the binding pair is mutually exclusive; the policy is left as it was', async () => {
    const name = fresh();
    await init(name, ['--acme-deny', 'example.com']);
    const r = await f.cli(['edit_ca', name, '--acme-eab-required', '--acme-eab-optional', '--acme-clear-names']);
    expect(r).toMatchObject({ code: 1, stderr: 'Error: --acme-eab-required and --acme-eab-optional are mutually exclusive.\n' });
    expect(await policyOf(name)).toEqual({ eabRequired: false, allow: [], deny: ['example.com'] });
  });

  it('a store without ACME data refuses the options before writing anything; view_ca shows no policy lines', async () => {
    // The same store with its ACME capability hidden (and kept hidden when the CLI scopes it to the operator).
    const bare: Store = Object.create(f.db.store, { acme: { value: undefined }, actingAs: { value: () => bare } }) as Store;
    const cli = cliRunner(bare, { CA_ENABLE_ACME: 'true' });
    const name = fresh();
    const r = await cli(['init_ca', '--key-type', 'Ed25519', '--acme-enable', '--acme-eab-required', name, `CN=${name}.example.com`]);
    expect(r).toMatchObject({ code: 1, stderr: 'Error: This store keeps no ACME data (it has no ACME capability).\n' });
    expect(await f.db.store.findCaByName(name)).toBeNull();
    expect((await cli(['init_ca', '--key-type', 'Ed25519', '--acme-enable', name, `CN=${name}.example.com`])).code).toBe(0);
    expect(acmeSection((await cli(['view_ca', name, '--no-pem'])).stdout)).toBe(SECTION_HEAD);
    const edit = await cli(['edit_ca', name, '--acme-disable', '--acme-allow', 'example.internal']);
    expect(edit).toMatchObject({ code: 1, stderr: 'Error: This store keeps no ACME data (it has no ACME capability).\n' });
    expect((await f.db.store.findCaByName(name))?.acmeEnabled).toBe(true);
  });
});
