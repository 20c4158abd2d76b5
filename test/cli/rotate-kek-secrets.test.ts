/**
 * `ca-admin rotate_kek` and the secrets sealed under the key-encryption key (docs/operations/kek-rotation.md):
 * webhook secrets and ACME binding keys move to the new key in the rotation's
 * transaction — the same secrets, opened by the new key only, without a `webhook.secret_rotated`
 * event — and a secret no key here opens is left and named instead of stopping the rotation.
 */
import { randomBytes } from 'crypto';
import { kekId } from '../../adapters/keys';
import { envKekSecretBox } from '../../adapters/keys/secret-box';
import { TABLES } from '../../adapters/store/knex/tables';
import { hasEventLog } from '../../lib/ports';
import { testDatabaseTargets } from '../helpers/database';
import { cliFixture, cliRunner, type CliResult } from './helpers';

const OLD = randomBytes(32).toString('base64');
const NEW = randomBytes(32).toString('base64');
const THIRD = randomBytes(32).toString('base64');
const id = (kek: string) => kekId(Buffer.from(kek, 'base64'));
const open = (kek: string, sealed: unknown) => envKekSecretBox({ CA_KEY_ENCRYPTION_KEY: kek })!.open(sealed);

describe.each(testDatabaseTargets())('rotate_kek re-seals webhook secrets and ACME binding keys on $name', (target) => {
  const f = cliFixture(target, 'rotate-kek-secrets-');
  const as =
    (kek: string) =>
    (argv: string[], env: Record<string, string> = {}) =>
      cliRunner(f.db.store, { CA_KEY_ENCRYPTION_KEY: kek, ...env })(argv);
  const ok = (r: CliResult) => {
    expect([r.code, r.stderr]).toEqual([0, '']);
    return r.stdout;
  };
  /** Printed once by the commands that made them: webhook id → secret bytes, and the binding key. */
  const webhookSecrets = new Map<string, Buffer>();
  let staleWebhook = '';
  let eab = { kid: '', hmac: Buffer.alloc(0) };

  const sealedSecrets = async () => ({
    webhooks: (await f.db.knex(TABLES.webhookEndpoints).select('id', 'secret').orderBy('id')) as { id: number; secret: unknown }[],
    eab: (await f.db.knex(TABLES.acmeEabKeys).select('kid', 'sealed')) as { kid: string; sealed: unknown }[],
  });
  const parsed = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);
  const snapshot = async () => JSON.stringify(await sealedSecrets());
  const eventTypesSince = async (after: number) => {
    if (!hasEventLog(f.db.store)) throw new Error('the knex store keeps events');
    return f.db.store.eventsSince(after, 100);
  };
  const lastEventId = async () => {
    const events = await eventTypesSince(0);
    return events.length ? events[events.length - 1].id : 0;
  };

  beforeAll(async () => {
    const cli = as(OLD);
    ok(await cli(['init_ca', '--key-type', 'EC', '--no-default-hostname', 'Root', 'CN=Rotation Root']));
    for (const url of ['https://hooks.example.com/a', 'https://hooks.example.com/b']) {
      const [, hook, secret] = /^id: (\d+)\nsecret: whsec_(\S+)\n$/.exec(ok(await cli(['add_webhook', url]))) ?? [];
      webhookSecrets.set(hook, Buffer.from(secret, 'base64'));
    }
    const [, kid, hmac] = /^kid: (\S+)\nhmac: (\S+)\n$/.exec(ok(await cli(['create_acme_eab_key', 'Root']))) ?? [];
    eab = { kid, hmac: Buffer.from(hmac, 'base64url') };
    // A webhook added by a process that had another key: no server with OLD could ever open it.
    staleWebhook = /^id: (\d+)/.exec(ok(await as(THIRD)(['add_webhook', 'https://hooks.example.com/stale'])))![1];
  });

  it('a CA key that cannot be moved stops the rotation: no secret is re-sealed either', async () => {
    ok(await as(THIRD)(['init_ca', '--key-type', 'EC', '--no-default-hostname', 'Stray', 'CN=Stray']));
    const before = await snapshot();
    const r = await as(OLD)(['rotate_kek', '--new-key-env', 'NEW_KEK'], { NEW_KEK: NEW });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error: Stray \(.*\): The key is encrypted under key-encryption key .* Nothing was changed\.\n$/);
    expect(await snapshot()).toBe(before);
    await f.db.knex(TABLES.cas).where({ name: 'Stray' }).delete();
  });

  it('--dry-run counts the secrets it would re-seal, names the one it cannot open, and changes nothing', async () => {
    const before = await snapshot();
    const r = await as(OLD)(['rotate_kek', '--dry-run', '--new-key-env', 'NEW_KEK'], { NEW_KEK: NEW });
    expect(r.stdout).toBe(
      `Dry run: would re-encrypt 1 key(s) (1 CA, 0 OCSP responder) from key-encryption key ${id(OLD)} to ${id(NEW)}; ` +
        'would re-seal 3 secret(s) (2 webhook, 1 ACME binding key). Nothing was changed.\n',
    );
    expect(r.stderr).toBe(
      `Left 1 secret(s) that the current key-encryption key does not open (webhook ${staleWebhook}): ` +
        'make new ones (rotate_webhook_secret, create_acme_eab_key).\n',
    );
    expect(await snapshot()).toBe(before);
  });

  it('moves every secret to the new key in the same transaction: the same secrets, recorded as kek.rotated only', async () => {
    const before = await sealedSecrets();
    const since = await lastEventId();
    const r = await as(OLD)(['rotate_kek', '--new-key-env', 'NEW_KEK'], { NEW_KEK: NEW });
    expect(r.stdout).toBe(
      `Re-encrypted 1 key(s) (1 CA, 0 OCSP responder) from key-encryption key ${id(OLD)} to ${id(NEW)}; ` +
        're-sealed 3 secret(s) (2 webhook, 1 ACME binding key).\n',
    );
    expect(r.stderr.split('\n')[0]).toBe(
      `Left 1 secret(s) that the current key-encryption key does not open (webhook ${staleWebhook}): make new ones (rotate_webhook_secret, create_acme_eab_key).`,
    );

    const after = await sealedSecrets();
    for (const row of after.webhooks) {
      const was = before.webhooks.find((w) => w.id === row.id)!;
      if (String(row.id) === staleWebhook) {
        expect(row.secret).toEqual(was.secret); // left exactly as it was
        continue;
      }
      expect(parsed(row.secret)).toMatchObject({ kekId: id(NEW) });
      expect(open(NEW, parsed(row.secret))).toEqual(webhookSecrets.get(String(row.id)));
      expect(() => open(OLD, parsed(row.secret))).toThrow(/key-encryption key does not match/);
    }
    const [binding] = after.eab;
    expect(binding.kid).toBe(eab.kid);
    expect(open(NEW, parsed(binding.sealed))).toEqual(eab.hmac);
    expect(() => open(OLD, parsed(binding.sealed))).toThrow(/key-encryption key does not match/);

    // Not a secret rotation: the endpoints' consumers keep their secrets; the audit log has the rotation.
    const events = await eventTypesSince(since);
    expect(events.map((e) => e.type)).toEqual(['kek.rotated']);
    const moved = [...webhookSecrets.keys()];
    expect(events[0].data).toMatchObject({
      from_kek: id(OLD),
      to_kek: id(NEW),
      keys: 1,
      secrets: 3,
      webhooks: moved,
      acme_eab_keys: [eab.kid],
    });

    // A real secret rotation afterwards still writes its event.
    ok(await as(NEW)(['rotate_webhook_secret', moved[0]]));
    expect((await eventTypesSince(events[0].id)).map((e) => e.type)).toEqual(['webhook.secret_rotated']);
  });

  it('a second run with the same new key finds the secrets under it already', async () => {
    const before = await snapshot();
    const r = await as(OLD)(['rotate_kek', '--new-key-env', 'NEW_KEK'], { NEW_KEK: NEW });
    expect(r.stdout).toMatch(/; re-sealed 0 secret\(s\) \(0 webhook, 0 ACME binding key\), 3 under the new key already\.\n$/);
    expect(await snapshot()).toBe(before);
  });
});
