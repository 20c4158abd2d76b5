/**
 * `ca-admin list_intents [--ca CA] [--state pending|issued|failed] [--door D] [--limit N]`
 * (docs/reference/cli.md): every certificate signature the CAs made, recorded before it was made, one
 * line each, newest first — issued (with the certificate), failed (when and why), pending. Bad flags
 * are one line on stderr before anything is read. Intents made by the real authority
 * (test/issuance/intent-states.ts). On every test database target.
 */
import { defaultKeyBackend } from '../../adapters/keys/default-backend';
import { initCa } from '../../lib/ca/authorities';
import type { Actor, CaRecord } from '../../lib/ports';
import { serialToColons } from '../../lib/x509/serial-format';
import { testDatabaseTargets } from '../helpers/database';
import { intentsOfEachState, type IntentsOfEachState } from '../issuance/intent-states';
import { cliFixture, TEST_KEK } from './helpers';

const alice: Actor = { type: 'api_user', id: 1, name: 'alice', protocol: 'rest', address: '192.0.2.7' };
/** `formatUtc`'s text of a time: milliseconds only when not zero. */
const utc = (d: Date) => d.toISOString().replace('.000Z', 'Z');

describe.each(testDatabaseTargets())('list_intents on $name', (target) => {
  const f = cliFixture(target, 'intents-');
  const backend = defaultKeyBackend({ keyEncryptionKey: TEST_KEK });
  let issuing: CaRecord;
  let made: IntentsOfEachState;
  let other: IntentsOfEachState;

  const newCa = (name: string) =>
    initCa({
      store: f.db.store,
      keyBackends: [backend],
      name,
      subject: [{ oid: 'CN', value: `${name}.example` }],
      keyType: 'EC',
      expiresDays: 365,
    });

  beforeAll(async () => {
    const second = await newCa('Second');
    issuing = await newCa('Issuing');
    other = await intentsOfEachState(f.db.store, second, backend, alice);
    made = await intentsOfEachState(f.db.store, issuing, backend, alice);
  }, 60_000);

  /** The line of an intent of `made` as list_intents prints it, its state's tail included. */
  const lines = async (): Promise<{ issued: string; failed: string; pending: string }> => {
    const [pending, failed, issued] = await f.db.store.listIntents({ caId: issuing.id });
    const head = (i: typeof pending, requester: string) =>
      `${i.id} - ${utc(i.created)} - Issuing - ${serialToColons(i.serial)} - ${i.door} - ${requester}`;
    return {
      pending: `${head(pending, 'api_user alice over rest from 192.0.2.7')} - pending`,
      failed: `${head(failed, '-')} - failed - ${utc(failed.failed!)}: ${failed.failure}`,
      issued: `${head(issued, 'api_user alice over rest from 192.0.2.7')} - issued - certificate ${serialToColons(made.issued.serial)}`,
    };
  };

  it('one line per intent, newest first: id, time, CA, serial, way in, requester, state, then the certificate or when and why it failed', async () => {
    const want = await lines();
    const res = await f.cli(['list_intents', '--ca', 'Issuing']);
    expect([res.code, res.stderr]).toEqual([0, '']);
    expect(res.stdout).toBe(`${want.pending}\n${want.failed}\n${want.issued}\n`);
    expect(want.failed).toMatch(/ - failed - .*: Not signed: .*unplugged$/);
    const all = await f.cli(['list_intents']);
    expect(all.stdout.trim().split('\n')).toHaveLength(6);
    expect(all.stdout.trim().split('\n')[3]).toContain(` - Second - ${serialToColons(other.pending.serial)} - acme - `);
  });

  it('--state, --door, --ca (serial or name) and --limit narrow it', async () => {
    const want = await lines();
    const stdout = async (argv: string[]) => {
      const res = await f.cli(['list_intents', ...argv]);
      expect([res.code, res.stderr]).toEqual([0, '']);
      return res.stdout;
    };
    expect(await stdout(['--state', 'failed', '--ca', issuing.serial])).toBe(`${want.failed}\n`);
    expect(await stdout(['--state', 'issued', '--ca', serialToColons(issuing.serial)])).toBe(`${want.issued}\n`);
    expect(await stdout(['--door', 'acme', '--limit', '1'])).toBe(`${want.pending}\n`);
    expect((await stdout(['--state', 'failed'])).split('\n').filter(Boolean)).toHaveLength(2);
    expect(await stdout(['--door', 'scep-ra'])).toBe('No intents.\n');
  });

  it.each([
    [
      ['--state', 'revoked'],
      /^error: option '--state <state>' argument 'revoked' is invalid\. Allowed choices are pending, issued, failed\.\n$/,
    ],
    [['--limit', '0'], /^Error: --limit 0: not a whole number from 1\.\n$/],
    [['--limit', 'ten'], /^Error: --limit ten: not a whole number from 1\.\n$/],
    [['--door', 'rest api'], /^Error: --door rest api: not a way in \(rest, acme, est, scep, admin, cli, library, …\)\.\n$/],
    [['--door', 'x'.repeat(17)], /^Error: --door x+: not a way in/],
    [['--ca', 'NoSuchCA'], /^Error: NoSuchCA: Certificate authority not found\.\n$/],
  ])('%j: one line on stderr, a failing exit, nothing on stdout', async (argv, message) => {
    const res = await f.cli(['list_intents', ...argv]);
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(message);
  });
});
