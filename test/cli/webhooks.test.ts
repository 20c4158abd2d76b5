/**
 * ca-admin's webhook commands (docs/operations/webhooks.md): add_webhook prints an id and a secret once, the
 * secret is stored sealed and never shown again, rotate_webhook_secret prints a new one, replay_webhook
 * rewinds, remove_webhook removes; bad input is one clear line and nothing written.
 */
import { envKekSecretBox } from '../../adapters/keys/secret-box';
import { TABLES } from '../../adapters/store/knex/tables';
import { hasEventLog } from '../../lib/ports';
import { testDatabaseTargets } from '../helpers/database';
import { cliFixture, TEST_KEK } from './helpers';

describe.each(testDatabaseTargets())('ca-admin webhooks on $name', (target) => {
  const f = cliFixture(target);

  beforeEach(async () => {
    await f.db.truncate();
  });

  it('add_webhook prints the secret once; list, rotate, replay and remove work by id', async () => {
    const added = await f.cli(['add_webhook', 'https://hooks.example.com/ca', '--event', 'certificate.issued', '--event', 'ca.created']);
    expect(added.stderr).toBe('');
    const [, id, secret] = /^id: (\d+)\nsecret: (whsec_[A-Za-z0-9+/]+=*)\n$/.exec(added.stdout) ?? [];
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);

    // Stored sealed: neither the secret nor its bytes are in the row; the key-encryption key opens it.
    const row = (await f.db.knex(TABLES.webhookEndpoints).first()) as { secret: unknown };
    expect(JSON.stringify(row)).not.toContain(secret.slice('whsec_'.length));
    const [record] = await f.db.store.webhooks.listWebhookEndpoints();
    expect(envKekSecretBox({ CA_KEY_ENCRYPTION_KEY: TEST_KEK })!.open(record.sealedSecret).toString('base64')).toBe(secret.slice(6));

    const listed = await f.cli(['list_webhooks']);
    expect(listed.stdout).toBe(`${id} - https://hooks.example.com/ca - certificate.issued, ca.created - after event 0, 0 delivered\n`);

    const rotated = await f.cli(['rotate_webhook_secret', id]);
    expect(rotated.stdout).toMatch(/^secret: whsec_[A-Za-z0-9+/]+=*\n$/);
    expect(rotated.stdout).not.toContain(secret);

    await f.cli(['init_ca', '--key-type', 'EC', 'Root', 'CN=root.example.com']);
    await f.db.store.createUser('someone', 'hash', []);
    if (!hasEventLog(f.db.store)) throw new Error('the knex store keeps events');
    const events = await f.db.store.eventsSince(0);
    expect(events.map((e) => e.type)).toEqual(['webhook.created', 'webhook.secret_rotated', 'ca.created', 'user.created']);
    expect(events[0].actor).toMatchObject({ type: 'operator', protocol: 'cli' });

    expect((await f.cli(['replay_webhook', id, '--from', String(events[2].id)])).code).toBe(0);
    expect((await f.cli(['list_webhooks'])).stdout).toContain(`after event ${events[1].id}, 0 delivered`);
    expect((await f.cli(['list_webhook_dead_letters', id])).stdout).toBe('No dead letters.\n');

    expect((await f.cli(['remove_webhook', id])).code).toBe(0);
    expect((await f.cli(['list_webhooks'])).stdout).toBe('No webhooks.\n');
    expect((await f.db.store.eventsSince(events[3].id)).map((e) => e.type)).toEqual(['webhook.removed']);
  });

  it('refuses bad input with one line, writing nothing', async () => {
    const cases: [string[], RegExp][] = [
      [['add_webhook', 'ftp://hooks.example.com/'], /webhook URL must be http:\/\/ or https:\/\//],
      [['add_webhook', 'not a url'], /"not a url" is not a URL/],
      [['add_webhook', 'https://user:pw@hooks.example.com/'], /must not carry credentials/],
      [['add_webhook', 'https://hooks.example.com/', '--event', 'certificate.exploded'], /unknown event type "certificate.exploded"/],
      [['remove_webhook', '42'], /^Error: 42: Webhook endpoint not found\.\n$/],
      [['rotate_webhook_secret', '42'], /^Error: 42: Webhook endpoint not found\.\n$/],
      [['replay_webhook', '42', '--from', '0'], /event id must be a positive integer/],
      [['replay_webhook', 'x', '--from', '1'], /webhook id: x is not an integer/],
    ];
    for (const [argv, message] of cases) {
      const result = await f.cli(argv);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.split('\n')).toHaveLength(2);
    }
    const noKek = await f.cli(['add_webhook', 'https://hooks.example.com/'], { env: {} });
    expect(noKek.stderr).toMatch(/No key-encryption key: set CA_KEY_ENCRYPTION_KEY/);
    expect(Number(((await f.db.knex(TABLES.webhookEndpoints).count('* as n').first()) as { n: unknown }).n)).toBe(0);
  });
});
