/**
 * `ca-admin create_acme_eab_key` and `list_acme_accounts` (docs/guides/acme.md): the key id and MAC key the
 * command prints bind a real ACME client's account (acme-client, RFC 8555 §7.3.4) at a server opening
 * keys with a box under the same key-encryption key, the MAC key is stored only sealed, and the CA's
 * accounts are listed one line each.
 */
import * as acme from 'acme-client';
import { generateKeyPairSync } from 'crypto';
import { kekSecretBox } from '../../adapters/keys/secret-box';
import { loadKek } from '../../adapters/keys/kek';
import { TABLES } from '../../adapters/store/knex/tables';
import { jwkThumbprint, type PublicJwk } from '../../lib/acme/jwk';
import type { CaRecord, EventLog } from '../../lib/ports';
import { serialToColons } from '../../lib/x509/serial-format';
import { KEK, startAcmeServer, type AcmeFixture } from '../acme/fixture';
import { testDatabaseTargets } from '../helpers/database';
import { cliRunner } from './helpers';
import { onAccountDeactivated } from '../../lib/acme/state-machine';

/** `kid: …` and `hmac: …`, exactly, or null. */
const printedKey = (stdout: string) => {
  const m = /^kid: ([A-Za-z0-9_-]+)\nhmac: ([A-Za-z0-9_-]+)\n$/.exec(stdout);
  return m && { kid: m[1], hmac: m[2] };
};

/** `formatUtc`'s text of a time: milliseconds only when not zero. */
const utc = (d: Date) => d.toISOString().replace('.000Z', 'Z');

/** A fresh public key as an ACME account holds it, with its thumbprint. */
function accountKey(): { jwk: Record<string, string>; thumbprint: string } {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as Record<string, string>;
  return { jwk, thumbprint: jwkThumbprint(jwk as unknown as PublicJwk) };
}

describe.each(testDatabaseTargets())('create_acme_eab_key and list_acme_accounts on $name', (target) => {
  let server: AcmeFixture;
  /** The server opens binding keys with the box of the KEK the command runs with. */
  const box = kekSecretBox(loadKek(KEK) as NonNullable<ReturnType<typeof loadKek>>);
  const cli = (argv: string[], env: Record<string, string> = {}) =>
    cliRunner(server.store, { CA_KEY_ENCRYPTION_KEY: KEK, CA_ENABLE_ACME: 'true', ...env })(argv);
  const eabRows = async () => (await server.db.knex(TABLES.acmeEabKeys).count({ n: '*' }))[0].n;

  beforeAll(async () => {
    server = await startAcmeServer(target, { eabSecrets: box });
  });
  afterAll(() => server?.close());

  test('the printed kid and MAC key bind an acme-client account; the store keeps the MAC key only sealed', async () => {
    expect((await cli(['edit_ca', 'issuing', '--acme-eab-required'])).stderr).toBe('');
    const r = await cli(['create_acme_eab_key', 'issuing']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const printed = printedKey(r.stdout);
    expect(printed).not.toBeNull();
    const { kid, hmac } = printed!;
    const secret = Buffer.from(hmac, 'base64url');
    expect(secret).toHaveLength(32);

    const stored = await server.store.acme.findEabKey(server.ca.id, kid);
    expect(stored).toMatchObject({ kid, caId: server.ca.id, accountId: null });
    // Both changes are audited, naming the operator; the key's record carries its kid only.
    const audited = (await (server.store as unknown as EventLog).eventsSince(0)).filter((e) => e.type.startsWith('acme.'));
    expect(audited.map((e) => [e.type, e.actor.type, e.actor.protocol, e.caSerial, e.data])).toEqual([
      ['acme.policy.updated', 'operator', 'cli', server.ca.serial, { eab_required: true, allow: [], deny: [] }],
      ['acme.eab_key.created', 'operator', 'cli', server.ca.serial, { kid }],
    ]);
    const row = JSON.stringify(await server.db.knex(TABLES.acmeEabKeys).where({ kid }).first());
    for (const form of [hmac, secret.toString('base64'), secret.toString('hex')]) expect(row).not.toContain(form);

    const client = (hmacKey?: string) =>
      acme.crypto.createPrivateEcdsaKey().then(
        (accountKey) =>
          new acme.Client({
            directoryUrl: server.directory,
            accountKey,
            ...(hmacKey === undefined ? {} : { externalAccountBinding: { kid, hmacKey } }),
          }),
      );
    await expect((await client()).createAccount({ termsOfServiceAgreed: true })).rejects.toThrow(/requires an external account binding/);
    const bound = await client(hmac);
    await bound.createAccount({ termsOfServiceAgreed: true, contact: ['mailto:ops@example.internal'] });
    const slug = bound.getAccountUrl().split('/').at(-2) as string;
    const account = await server.store.acme.findAccount(server.ca.id, slug);
    expect(account?.eabKid).toBe(kid);

    const listed = await cli(['list_acme_accounts', 'issuing']);
    expect(listed.stderr).toBe('');
    expect(listed.stdout).toBe(
      `${slug} - valid - mailto:ops@example.internal - created ${utc(account!.created)} - bound to EAB key ${kid}\n`,
    );
  });

  test('each run makes a new key; the CA by serial too; an unknown CA is an error and writes nothing', async () => {
    const bySerial = printedKey((await cli(['create_acme_eab_key', serialToColons(server.ca.serial)])).stdout);
    const again = printedKey((await cli(['create_acme_eab_key', server.ca.serial.toLowerCase()])).stdout);
    expect(bySerial && again && bySerial.kid !== again.kid && bySerial.hmac !== again.hmac).toBe(true);
    expect(await server.store.acme.findEabKey(server.ca.id, again!.kid)).not.toBeNull();

    const before = await eabRows();
    const unknown = await cli(['create_acme_eab_key', 'no-such-ca']);
    expect(unknown).toMatchObject({ code: 1, stdout: '', stderr: 'Error: no-such-ca: Certificate authority not found.\n' });
    expect(await eabRows()).toEqual(before);
  });

  test('without a key-encryption key: a clear error, and nothing is stored', async () => {
    const before = await eabRows();
    const r = await cli(['create_acme_eab_key', 'issuing'], { CA_KEY_ENCRYPTION_KEY: '' });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Error: No key-encryption key: set CA_KEY_ENCRYPTION_KEY .*sealed under it\.\n$/);
    expect(await eabRows()).toEqual(before);
    const bad = await cli(['create_acme_eab_key', 'issuing'], { CA_KEY_ENCRYPTION_KEY: 'c2hvcnQ=' });
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toMatch(/must be exactly 32 bytes/);
    expect(await eabRows()).toEqual(before);
  });

  describe('list_acme_accounts', () => {
    let other: CaRecord;

    beforeAll(async () => {
      expect((await cli(['init_ca', '--key-type', 'Ed25519', '--parent', 'root', 'Listed', 'CN=listed.example.com'])).code).toBe(0);
      other = (await server.store.findCaByName('Listed'))!;
    });

    test('no accounts: says so', async () => {
      expect(await cli(['list_acme_accounts', 'Listed'])).toEqual(expect.objectContaining({ code: 0, stdout: 'No ACME accounts.\n' }));
    });

    test('one line each, oldest first: slug, status, contacts, created', async () => {
      const make = (contact: string[]) =>
        server.store.acme.createAccount({ caId: other.id, ...accountKey(), contact, termsOfServiceAgreed: true }).then((a) => a.account);
      const first = await make(['mailto:a@example.internal', 'mailto:b@example.internal']);
      const second = await make([]);
      const { account: deactivate, cascade } = onAccountDeactivated();
      const third = await server.store.acme.updateAccount((await make(['mailto:c@example.internal'])).id, { status: deactivate }, cascade);
      const r = await cli(['list_acme_accounts', serialToColons(other.serial)]);
      expect(r.stderr).toBe('');
      expect(r.stdout.split('\n')).toEqual([
        `${first.slug} - valid - mailto:a@example.internal, mailto:b@example.internal - created ${utc(first.created)}`,
        `${second.slug} - valid - (no contact) - created ${utc(second.created)}`,
        `${third.slug} - deactivated - mailto:c@example.internal - created ${utc(third.created)}`,
        '',
      ]);
      // Another CA's accounts are not listed.
      expect((await cli(['list_acme_accounts', 'issuing'])).stdout).not.toContain(first.slug);
    });

    test('an unknown CA is an error', async () => {
      expect(await cli(['list_acme_accounts', 'nope'])).toMatchObject({
        code: 1,
        stderr: 'Error: nope: Certificate authority not found.\n',
      });
    });
  });
});
