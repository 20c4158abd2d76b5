/**
 * `ca-admin revoke_ca` (docs/reference/cli.md) on PGlite and PostgreSQL: the CA revoked with
 * revoke_cert's reasons and `--compromised`, one line on stdout, the `ca.revoked` event naming the
 * operator; afterwards it signs nothing, while its own CRL is still signed and its parent's CRL of CAs
 * lists it (openssl reads both). A second revocation, an unknown CA and bad input are one error line
 * and exit 1, with nothing written.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { hasEventLog, type DomainEvent, type Store } from '../../lib/ports';
import { serialToColons } from '../../lib/x509/serial-format';
import { testDatabaseTargets } from '../helpers/database';
import { cliFixture } from './helpers';
import { openssl, opensslCsr } from './openssl';

const SERIAL = '[0-9A-F]{2}(?::[0-9A-F]{2})*';

describe.each(testDatabaseTargets())('revoke_ca on $name', (target) => {
  const f = cliFixture(target, 'revoke-ca-');
  const store = (): Store => f.db.store;
  const events = async (): Promise<DomainEvent[]> => {
    const s = store();
    if (!hasEventLog(s)) throw new Error('the test store keeps events');
    return s.eventsSince(0);
  };
  const ok = async (argv: string[]) => {
    const r = await f.cli(argv);
    expect([argv[0], r.stderr, r.code]).toEqual([argv[0], '', 0]);
    return r;
  };

  beforeAll(async () => {
    await ok(['init_ca', '--key-type', 'EC', '--no-default-hostname', '--expires', '365', '--path-length', '1', 'Root', 'CN=Revoke Root']);
    await ok(['init_ca', '--key-type', 'EC', '--no-default-hostname', '--expires', '300', '--parent', 'Root', 'Child', 'CN=Revoke Child']);
  });

  /** Every later refusal must leave both CAs and the event log as they are. */
  async function unchanged(work: () => Promise<void>): Promise<void> {
    const before = { cas: await store().listCas(), events: (await events()).length };
    await work();
    expect(await store().listCas()).toEqual(before.cas);
    expect((await events()).length).toBe(before.events);
  }

  it('refuses an unknown CA, an unknown reason and a compromise in the future: one line, exit 1, nothing written', async () => {
    await unchanged(async () => {
      for (const [argv, line] of [
        [['revoke_ca', 'NoSuchCA'], 'Error: NoSuchCA: Certificate authority not found.\n'],
        [['revoke_ca', 'Child', '--reason', 'bored'], 'Error: reason: bored: Unknown revocation reason.\n'],
        [
          ['revoke_ca', 'Child', '--compromised', '2999-01-01T00:00:00Z'],
          'Error: compromised: 2999-01-01T00:00:00Z: Timestamp must be in the past.\n',
        ],
      ] as const) {
        const r = await f.cli([...argv]);
        expect([argv, r.code, r.stdout, r.stderr]).toEqual([argv, 1, '', line]);
      }
    });
    expect((await store().findCaByName('Child'))!.revoked).toBe(false);
  });

  it('revokes the CA, says so in one line, and audits it as the operator', async () => {
    const child = (await store().findCaByName('Child'))!;
    const r = await ok(['revoke_ca', 'Child', '--reason', 'key_compromise', '--compromised', '2026-01-02T03:04:05Z']);
    expect(r.stdout).toMatch(
      new RegExp(`^Revoked CA Child \\(${SERIAL}\\) \\(reason: key_compromise, key compromised 2026-01-02T03:04:05Z\\)\\.\n$`),
    );
    expect(r.stdout).toContain(serialToColons(child.serial));
    const revoked = (await store().findCaByName('Child'))!;
    expect(revoked).toMatchObject({ revoked: true, revokedReason: 'key_compromise', compromised: new Date('2026-01-02T03:04:05Z') });
    expect(revoked.revokedDate).toBeInstanceOf(Date);
    expect((await store().findCaByName('Root'))!.revoked).toBe(false);
    const audited = (await events()).filter((e) => e.type === 'ca.revoked');
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({
      caSerial: child.serial,
      actor: { type: 'operator', name: os.userInfo().username, protocol: 'cli' },
      data: { reason: 'key_compromise' },
    });
  });

  it('a revoked CA signs nothing; its own CRL is still signed; its parent CRL of CAs lists it', async () => {
    const child = (await store().findCaByName('Child'))!;
    const sign = await f.cli(['sign_cert', '--ca', 'Child', '--csr', opensslCsr(f.dir, 'leaf'), '--subject', 'CN=leaf.example.com']);
    expect([sign.code, sign.stdout, sign.stderr]).toEqual([1, '', 'Error: Child: The certificate authority is revoked.\n']);

    const own = path.join(f.dir, 'child.crl');
    await ok(['dump_crl', '--ca', 'Child', own]);
    fs.writeFileSync(path.join(f.dir, 'child.pem'), (await ok(['view_ca', 'Child', '--output-format', 'pem'])).stdout);
    const verified = spawnSync('openssl', ['crl', '-in', own, '-noout', '-verify', '-CAfile', path.join(f.dir, 'child.pem')]);
    expect([verified.status, verified.stderr.toString().trim()]).toEqual([0, 'verify OK']);

    const parent = (await ok(['dump_crl', '-', '--ca', 'Root', '--only-contains-ca-certs'])).stdout;
    const text = openssl(['crl', '-noout', '-text'], parent);
    expect(text).toMatch(new RegExp(`Serial Number: 0?${child.serial}[\\s\\S]*?Key Compromise`));
  });

  it('refuses to revoke it again: one line, exit 1, the first revocation kept as it was', async () => {
    await unchanged(async () => {
      const r = await f.cli(['revoke_ca', 'Child', '--reason', 'superseded']);
      expect([r.code, r.stdout, r.stderr]).toEqual([1, '', 'Error: Child: The certificate authority is already revoked.\n']);
    });
    expect((await store().findCaByName('Child'))!.revokedReason).toBe('key_compromise');
  });
});
