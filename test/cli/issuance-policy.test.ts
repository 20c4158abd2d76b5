/**
 * A CA's own issuance policy from `ca-admin` (docs/guides/issuance-policy.md): `edit_ca --issuance-keys`,
 * `--issuance-allow`, `--issuance-deny` (each part replaced, every entry checked and canonical) and
 * `--issuance-policy-default`; `view_ca`'s Issuance policy section ("defaults" where it narrows
 * nothing); the change audited as the operator with the policy before and after; a bad entry one
 * `Error:` line, a non-zero exit and nothing written; `sign_cert` then refused by it.
 */
import * as path from 'path';
import { execFileSync } from 'child_process';
import type { EventLog } from '../../lib/ports';
import { testDatabaseTargets } from '../helpers/database';
import { cliFixture } from './helpers';

/** The lines from `Issuance policy:` up to the next section. */
const policySection = (text: string) => /^Issuance policy:\n(?:\* .*\n)*/m.exec(text)?.[0] ?? null;

const DEFAULTS =
  'Issuance policy:\n' +
  '* Keys accepted: RSA ≥ 2048 bits, EC P-256/P-384/P-521, Ed25519 or Ed448 (defaults)\n' +
  '* Names allowed: any name (defaults)\n' +
  '* Names denied: none (defaults)\n';

describe.each(testDatabaseTargets())('issuance policy options of edit_ca on $name', (target) => {
  const f = cliFixture(target, 'issuance-policy-');
  const events = () => f.db.store as unknown as EventLog;
  let n = 0;
  const fresh = async () => {
    const name = `Narrow${++n}`;
    const made = await f.cli(['init_ca', '--key-type', 'Ed25519', '--no-default-hostname', name, `CN=${name}.example.com`]);
    expect(made.stderr).toBe('');
    return name;
  };
  const policyOf = async (name: string) => (await f.db.store.findCaByName(name))?.issuancePolicy;
  const view = async (name: string) => policySection((await f.cli(['view_ca', name, '--no-pem'])).stdout);

  it('a new CA has the defaults; edit_ca sets each part, view_ca shows it, the event names the operator, old and new', async () => {
    const name = await fresh();
    expect(await policyOf(name)).toBeNull();
    expect(await view(name)).toBe(DEFAULTS);
    const since = await events().latestEventId();
    const r = await f.cli([
      'edit_ca',
      name,
      '--issuance-keys',
      'p-384,RSA-3072',
      '--issuance-allow',
      'Corp.Example.',
      '--issuance-allow',
      '10.0.0.0/8',
      '--issuance-deny',
      'blocked.corp.example',
    ]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^Changed CA Narrow\d+ /);
    const policy = { keys: ['RSA-3072', 'P-384'], allow: ['corp.example', '10.0.0.0/8'], deny: ['blocked.corp.example'] };
    expect(await policyOf(name)).toEqual(policy);
    expect(await view(name)).toBe(
      'Issuance policy:\n* Keys accepted: RSA ≥ 3072 bits, EC P-384\n* Names allowed: corp.example, 10.0.0.0/8\n* Names denied: blocked.corp.example\n',
    );
    const changed = (await events().eventsSince(since)).filter((e) => e.type === 'ca.issuance_policy.updated');
    expect(changed.map((e) => [e.actor, e.data])).toEqual([
      [expect.objectContaining({ type: 'operator', protocol: 'cli' }), { name, old: null, new: policy }],
    ]);

    // One part given: the others kept.
    expect((await f.cli(['edit_ca', name, '--issuance-deny', '10.9.0.0/16'])).code).toBe(0);
    expect(await policyOf(name)).toEqual({ ...policy, deny: ['10.9.0.0/16'] });
    expect((await f.cli(['edit_ca', name, '--issuance-keys', 'default'])).code).toBe(0);
    expect(await policyOf(name)).toEqual({ keys: null, allow: policy.allow, deny: ['10.9.0.0/16'] });
  });

  it('--issuance-policy-default clears the policy (null), the options given with it filling in their parts', async () => {
    const name = await fresh();
    await f.cli(['edit_ca', name, '--issuance-keys', 'P-256', '--issuance-deny', 'blocked.example']);
    const old = await policyOf(name);
    const since = await events().latestEventId();
    expect((await f.cli(['edit_ca', name, '--issuance-policy-default'])).code).toBe(0);
    expect(await policyOf(name)).toBeNull();
    expect(await view(name)).toBe(DEFAULTS);
    const changed = (await events().eventsSince(since)).filter((e) => e.type === 'ca.issuance_policy.updated');
    expect(changed.map((e) => e.data)).toEqual([{ name, old, new: null }]);
    expect((await f.cli(['edit_ca', name, '--issuance-policy-default', '--issuance-keys', 'Ed25519'])).code).toBe(0);
    expect(await policyOf(name)).toEqual({ keys: ['Ed25519'], allow: [], deny: [] });
  });

  it.each([
    [
      ['--issuance-keys', 'P-192'],
      'Error: --issuance-keys "P-192": not a key kind (one of RSA or RSA-<bits> (at least 2048), P-256, P-384, P-521, Ed25519, Ed448).',
    ],
    [['--issuance-keys', 'RSA-1024'], 'Error: --issuance-keys "RSA-1024": RSA keys of fewer than 2048 bits are never accepted.'],
    [['--issuance-keys', 'DSA'], 'Error: --issuance-keys "DSA": not a key kind'],
    [['--issuance-allow', '*.corp.example'], 'Error: --issuance-allow "*.corp.example": not a DNS suffix'],
    [['--issuance-deny', '10.0.0.1/8'], 'Error: --issuance-deny "10.0.0.1/8": not an IP address or network'],
  ])('%j is refused: one line, a non-zero exit, nothing written (the other options given neither)', async (flags, message) => {
    const name = await fresh();
    await f.cli(['edit_ca', name, '--issuance-deny', 'kept.example']);
    const before = await f.db.store.findCaByName(name);
    const since = await events().latestEventId();
    const r = await f.cli(['edit_ca', name, '--website', 'https://changed.example.com/', ...flags]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^[^\n]+\n$/);
    expect(r.stderr.startsWith(message)).toBe(true);
    expect(await f.db.store.findCaByName(name)).toEqual(before);
    expect(await events().eventsSince(since)).toEqual([]);
  });

  it('sign_cert is refused by the policy with one line naming it, and issues what it allows', async () => {
    const name = await fresh();
    await f.cli(['edit_ca', name, '--issuance-keys', 'P-384', '--issuance-allow', 'corp.example']);
    const csr = (curve: string, cn: string) => {
      const file = path.join(f.dir, `${cn}-${curve}.csr`);
      execFileSync(
        'openssl',
        [
          'req',
          '-new',
          '-newkey',
          'ec',
          '-pkeyopt',
          `ec_paramgen_curve:${curve}`,
          '-nodes',
          '-keyout',
          `${file}.key`,
          '-subj',
          `/CN=${cn}`,
          '-out',
          file,
        ],
        { stdio: 'pipe' },
      );
      return file;
    };
    const sign = (file: string, cn: string) =>
      f.cli(['sign_cert', '--ca', name, '--csr', file, '--subject', `CN=${cn}`, '--subject-alternative-name', `DNS:${cn}`]);
    const p256 = await sign(csr('P-256', 'a.corp.example'), 'a.corp.example');
    expect(p256.code).not.toBe(0);
    expect(p256.stderr).toMatch(
      new RegExp(
        `^Error: csr: The CSR's public key is not accepted by the issuance policy of certificate authority ${name}: .*\\(accepted: EC P-384\\)\\.\\n$`,
      ),
    );
    const outside = await sign(csr('P-384', 'www.example.org'), 'www.example.org');
    expect(outside.code).not.toBe(0);
    expect(outside.stderr).toContain(
      `not among the names the issuance policy of certificate authority ${name} allows (allow corp.example)`,
    );
    const ok = await sign(csr('P-384', 'b.corp.example'), 'b.corp.example');
    expect(ok).toMatchObject({ code: 0, stderr: '' });
  });
});
