/**
 * The management events (CAs, API users, webhook endpoints, ACME accounts, policies and binding keys,
 * enrolment endpoints and decisions) are written by the store's code that makes the change, in its
 * transaction, naming the actor the store is scoped to (`actingAs`) — docs/DESIGN.md "Domain events",
 * adapters/store/knex/transaction-events.ts. Each write path with its actor and data, the changes that
 * are no event, one store transaction's events appended together at its end, and — the deliberate
 * change of migration 0032 — a row changed with SQL from outside the library makes no event.
 */
import { onAccountDeactivated } from '../../lib/acme/state-machine';
import type { KnexStore } from '../../adapters/store/knex/store';
import { TABLES } from '../../adapters/store/knex/tables';
import type { Actor } from '../../lib/ports';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa } from '../store/records';

const OPERATOR: Actor = { type: 'operator', name: 'root', protocol: 'cli' };
/** What the events of a write without an actor name: the database role. */
const DATABASE = expect.objectContaining({ type: 'database', protocol: 'sql' });

describe.each(testDatabaseTargets())('management events written by the code, on $name', (target) => {
  let db: TestDatabase;
  let store: KnexStore;
  let operator: KnexStore;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    store = db.store as unknown as KnexStore;
    operator = store.actingAs(OPERATOR);
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.truncate();
  });

  /** The events after `after`: type, actor, CA serial, serial, data. */
  const eventsAfter = async (after: number) =>
    (await store.eventsSince(after, 1000)).map((e) => [e.type, e.actor, e.caSerial, e.serial, e.data] as const);
  const latest = () => store.latestEventId();

  it('CAs: created (with the parent), updated naming the changed fields, issuance policy, revoked; a re-wrapped key is none', async () => {
    const root = await operator.insertCa(newCa({ name: 'Root' }));
    const sub = await store.insertCa(newCa({ name: 'Sub', parentId: root.id, keyBackendAlias: 'hsm' }));
    expect(await eventsAfter(0)).toEqual([
      ['ca.created', OPERATOR, root.serial, null, { name: 'Root', parent: null, key_backend: 'default' }],
      ['ca.created', DATABASE, sub.serial, null, { name: 'Sub', parent: root.serial, key_backend: 'hsm' }],
    ]);

    let after = await latest();
    const policy = { keys: ['P-256'], allow: ['example.com'], deny: [] };
    await operator.updateCa(sub.id, { website: 'https://example.com', issuancePolicy: policy });
    await operator.updateCa(sub.id, {}); // `updated` moves: a save, with nothing else changed
    expect(await eventsAfter(after)).toEqual([
      ['ca.updated', OPERATOR, sub.serial, null, { name: 'Sub', changed: ['issuance_policy', 'website'] }],
      ['ca.issuance_policy.updated', OPERATOR, sub.serial, null, { name: 'Sub', old: null, new: policy }],
      ['ca.updated', OPERATOR, sub.serial, null, { name: 'Sub', changed: [] }],
    ]);

    // `ca-admin rotate_kek`: the key is wrapped anew, the CA as the API shows it did not change.
    after = await latest();
    await operator.rewriteStoredKeys('default', (key) => ({ ...key.options, rewrapped: true }), { kek: 'k2' });
    expect((await eventsAfter(after)).map(([type, actor, , , data]) => [type, actor, data])).toEqual([
      ['kek.rotated', OPERATOR, { kek: 'k2', key_backend: 'default', keys: 1, cas: [root.serial] }],
    ]);

    after = await latest();
    const revoked = await operator.revokeCa(sub.id, 'superseded', null, new Date('2026-03-04T05:06:07.000Z'));
    const events = await eventsAfter(after);
    expect(events.map(([type, actor, caSerial, serial]) => [type, actor, caSerial, serial])).toEqual([
      ['ca.revoked', OPERATOR, sub.serial, null],
    ]);
    expect(events[0][4]).toEqual({ name: 'Sub', reason: 'superseded', revoked_date: expect.any(String), compromised: null });
    expect(new Date(events[0][4].revoked_date as string)).toEqual(revoked.revokedDate);
  });

  it('API users: created, password changed, permissions changed (as they now are), deleted', async () => {
    const ca = await store.insertCa(newCa());
    const after = await latest();
    const alice = await operator.createUser('alice', 'hash', ['view_certificate']);
    await operator.updateUser(alice.id, { passwordHash: 'hash2' });
    await store.updateUser(alice.id, {
      permissions: ['sign_certificate'],
      caGrants: [{ permission: 'view_certificate', caSerial: ca.serial }],
    });
    await operator.deleteUser(alice.id);
    const user = { username: 'alice', user_id: alice.id };
    expect(await eventsAfter(after)).toEqual([
      ['user.created', OPERATOR, null, null, { username: 'alice' }],
      ['user.password_changed', OPERATOR, null, null, user],
      [
        'user.permissions_changed',
        DATABASE,
        null,
        null,
        {
          ...user,
          permissions: [
            { permission: 'sign_certificate', ca: null },
            { permission: 'view_certificate', ca: ca.serial },
          ],
        },
      ],
      ['user.deleted', OPERATOR, null, null, user],
    ]);
  });

  it('webhook endpoints: added, given a new secret (the same one again is none), removed; a replay is none', async () => {
    const hooks = operator.webhooks;
    const hook = await hooks.addWebhookEndpoint({ url: 'https://hooks.example/a', sealedSecret: { v: 1 }, eventTypes: ['ca.created'] });
    expect(await hooks.setWebhookSecret(hook.id, { v: 2 })).toBe(true);
    expect(await hooks.setWebhookSecret(hook.id, { v: 2 })).toBe(true);
    expect(await hooks.setWebhookSecret(hook.id + 100, { v: 3 })).toBe(false);
    expect(await hooks.rewindWebhookEndpoint(hook.id, 1)).toBe(true);
    expect(await hooks.removeWebhookEndpoint(hook.id)).toBe(true);
    expect(await hooks.removeWebhookEndpoint(hook.id)).toBe(false);
    const about = { webhook: hook.id, url: 'https://hooks.example/a', event_types: ['ca.created'] };
    expect(await eventsAfter(0)).toEqual([
      ['webhook.created', OPERATOR, null, null, about],
      ['webhook.secret_rotated', OPERATOR, null, null, about],
      ['webhook.removed', OPERATOR, null, null, about],
    ]);
  });

  it('ACME: an account names itself; a deactivation the operator, else the account, once; policies when they change; binding keys', async () => {
    const ca = await store.insertCa(newCa());
    const after = await latest();
    await operator.acme.createEabKey({ kid: 'kid-1', caId: ca.id, sealed: { secret: 'sealed' } });
    const account = (jwk: string, eabKid?: string) =>
      store.acme.createAccount({
        caId: ca.id,
        jwk: { kty: 'EC', x: jwk },
        thumbprint: jwk,
        contact: [`mailto:${jwk}@example.com`],
        termsOfServiceAgreed: true,
        eabKid,
      });
    const deactivation = onAccountDeactivated();
    const { account: a } = await account('a', 'kid-1');
    const { account: b, created } = await account('b');
    expect(created).toBe(true);
    expect((await account('b')).created).toBe(false); // the same key again: no new account, no event
    await store.acme.updateAccount(a.id, { status: deactivation.account }, deactivation.cascade); // over ACME, by the account itself
    await operator.acme.updateAccount(b.id, { contact: ['mailto:new@example.com'] });
    await operator.acme.updateAccount(b.id, { status: deactivation.account }, deactivation.cascade);
    await operator.acme.updateAccount(b.id, { status: deactivation.account }, deactivation.cascade); // deactivated already
    const { account: c } = await account('c');
    // Inside a store transaction of the acting store (the admin interface's way): still the operator.
    await operator.transaction((tx) => (tx as KnexStore).acme.updateAccount(c.id, { status: deactivation.account }, deactivation.cascade));
    await operator.acme.setPolicy(ca.id, { eabRequired: true }); // made
    await operator.acme.setPolicy(ca.id, { eabRequired: true }); // saved, unchanged
    await store.acme.setPolicy(ca.id, { allow: ['example.com'] }); // changed
    const itself = (id: number) => ({ type: 'acme_account', id, protocol: 'acme' });
    expect(await eventsAfter(after)).toEqual([
      ['acme.eab_key.created', OPERATOR, ca.serial, null, { kid: 'kid-1' }],
      ['acme.account.created', itself(a.id), ca.serial, null, { account: a.slug, eab_kid: 'kid-1' }],
      ['acme.account.created', itself(b.id), ca.serial, null, { account: b.slug, eab_kid: null }],
      ['acme.account.deactivated', itself(a.id), ca.serial, null, { account: a.slug, contact: ['mailto:a@example.com'] }],
      ['acme.account.deactivated', OPERATOR, ca.serial, null, { account: b.slug, contact: ['mailto:new@example.com'] }],
      ['acme.account.created', itself(c.id), ca.serial, null, { account: c.slug, eab_kid: null }],
      ['acme.account.deactivated', OPERATOR, ca.serial, null, { account: c.slug, contact: ['mailto:c@example.com'] }],
      ['acme.policy.updated', OPERATOR, ca.serial, null, { eab_required: true, allow: [], deny: [] }],
      ['acme.policy.updated', DATABASE, ca.serial, null, { eab_required: true, allow: ['example.com'], deny: [] }],
    ]);
  });

  it('enrolment endpoints: created, updated naming the changed fields (none changed: no event), deleted; decisions', async () => {
    const ca = await store.insertCa(newCa());
    const other = await store.insertCa(newCa());
    const after = await latest();
    const endpoints = operator.enrolmentEndpoints;
    await endpoints.createEnrolmentEndpoint({
      protocol: 'EST',
      label: 'phones',
      caId: ca.id,
      profile: 'client',
      challengeSha256: 'ab'.repeat(32),
      approval: false,
      names: null,
      validityDays: 30,
      requestsPerMinute: null,
      challengeWebhook: false,
      enabled: true,
    });
    await endpoints.updateEnrolmentEndpoint('EST', 'phones', {
      caId: other.id,
      enabled: false,
      names: { allow: ['example.com'], deny: [], subjectAttributes: null },
    });
    await endpoints.updateEnrolmentEndpoint('EST', 'phones', { enabled: false });
    expect(await endpoints.updateEnrolmentEndpoint('EST', 'tablets', { enabled: false })).toBeNull();
    expect(await endpoints.deleteEnrolmentEndpoint('EST', 'phones')).toBe(true);
    expect(await endpoints.deleteEnrolmentEndpoint('EST', 'phones')).toBe(false);

    const kept = await store.enrolmentRequests.createEnrolmentRequest({
      protocol: 'scep',
      label: '',
      caId: ca.id,
      profile: 'client',
      validityDays: null,
      csrDer: Buffer.from([0x30, 0x00]),
      requester: { type: 'challenge', name: 'laptop', protocol: 'scep' },
      requestKey: 'k'.repeat(64),
    });
    const decider = { type: 'api_user', id: 3, name: 'alice', protocol: 'admin' };
    expect(await store.enrolmentRequests.decideEnrolmentRequest(kept!.id, { status: 'refused', reason: 'no' }, decider, new Date())).toBe(
      true,
    );
    expect(await store.enrolmentRequests.decideEnrolmentRequest(kept!.id, { status: 'refused', reason: 'no' }, decider, new Date())).toBe(
      false,
    );

    expect(await eventsAfter(after)).toEqual([
      [
        'enrolment.endpoint.created',
        OPERATOR,
        ca.serial,
        null,
        {
          protocol: 'EST',
          label: 'phones',
          profile: 'client',
          challenge: true,
          approval: false,
          names: null,
          validity_days: 30,
          enabled: true,
          requests_per_minute: null,
          challenge_webhook: false,
        },
      ],
      [
        'enrolment.endpoint.updated',
        OPERATOR,
        other.serial,
        null,
        { protocol: 'EST', label: 'phones', changed: ['ca', 'names', 'enabled'] },
      ],
      ['enrolment.endpoint.deleted', OPERATOR, other.serial, null, { protocol: 'EST', label: 'phones' }],
      ['enrolment.refused', decider, ca.serial, null, { request: kept!.id, protocol: 'scep', label: '', reason: 'no' }],
    ]);
  });

  it("a store transaction's events are appended together at its end, in the order of its changes; none when it rolls back", async () => {
    const after = await latest();
    const ca = await operator.transaction(async (tx) => {
      const made = await tx.insertCa(newCa({ name: 'In one' }));
      await tx.createUser('bob', 'hash', []);
      await (tx as KnexStore).acme.setPolicy(made.id, { eabRequired: true });
      await (tx as KnexStore).webhooks.addWebhookEndpoint({ url: 'https://hooks.example/b', sealedSecret: {}, eventTypes: [] });
      // Nothing is written before the transaction's last statement, not even to the transaction itself.
      expect(await (tx as KnexStore).latestEventId()).toBe(after);
      return made;
    });
    const events = await store.eventsSince(after, 1000);
    expect(events.map((e) => [e.type, e.actor])).toEqual([
      ['ca.created', OPERATOR],
      ['user.created', OPERATOR],
      ['acme.policy.updated', OPERATOR],
      ['webhook.created', OPERATOR],
    ]);
    expect(events.map((e) => e.id - events[0].id)).toEqual([0, 1, 2, 3]);

    await expect(
      operator.transaction(async (tx) => {
        await tx.updateCa(ca.id, { website: 'https://rolled.back' });
        await tx.createUser('carol', 'hash', []);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await store.eventsSince(events[3].id)).toEqual([]);
  });

  it('a change made with SQL from outside the library makes no event (migration 0032)', async () => {
    const ca = await store.insertCa(newCa());
    const user = await store.createUser('dave', 'hash', []);
    const hook = await store.webhooks.addWebhookEndpoint({ url: 'https://hooks.example/c', sealedSecret: {}, eventTypes: [] });
    const { account } = await store.acme.createAccount({ caId: ca.id, jwk: {}, thumbprint: 't', contact: [], termsOfServiceAgreed: true });
    await store.enrolmentEndpoints.createEnrolmentEndpoint({
      protocol: 'SCEP',
      label: 'raw',
      caId: ca.id,
      profile: null,
      challengeSha256: null,
      approval: true,
      names: null,
      validityDays: null,
      requestsPerMinute: null,
      challengeWebhook: false,
      enabled: true,
    });
    const request = await store.enrolmentRequests.createEnrolmentRequest({
      protocol: 'scep',
      label: 'raw',
      caId: ca.id,
      profile: 'client',
      validityDays: null,
      csrDer: Buffer.from([0x30, 0x00]),
      requester: { type: 'challenge', protocol: 'scep' },
      requestKey: 'r'.repeat(64),
    });
    const after = await latest();
    const sql = (text: string, bindings: unknown[] = []) => db.knex.raw(text, bindings as never[]);
    const { cas, users, webhookEndpoints, acmeAccounts, acmePolicies, acmeEabKeys, enrolmentEndpoints, enrolmentRequests } = TABLES;
    // A copy of the CA row under another id, serial and name: a CA made with SQL.
    await sql(`CREATE TEMPORARY TABLE raw_ca AS SELECT * FROM ${cas} WHERE id = ?`, [ca.id]);
    await sql(`UPDATE raw_ca SET id = id + 1000, serial = 'AB', name = 'raw'`);
    await sql(`INSERT INTO ${cas} SELECT * FROM raw_ca`);
    await sql(`DROP TABLE raw_ca`);
    await sql(`UPDATE ${cas} SET website = 'https://raw.example', issuance_policy = '{"keys":null,"allow":[],"deny":[]}', updated = now()`);
    await sql(`UPDATE ${cas} SET revoked = true, revoked_reason = 'superseded', revoked_date = now() WHERE id = ?`, [ca.id]);
    await sql(`INSERT INTO ${users} (username, password_hash, created, updated) VALUES ('erin', 'x', now(), now())`);
    await sql(`UPDATE ${users} SET password_hash = 'y', updated = now() + interval '1 second' WHERE id = ?`, [user.id]);
    await sql(`DELETE FROM ${users} WHERE username = 'erin'`);
    await sql(`INSERT INTO ${webhookEndpoints} (url, secret, event_types, position) VALUES ('https://raw', '{}', '[]', 0)`);
    await sql(`UPDATE ${webhookEndpoints} SET secret = '{"v":9}' WHERE id = ?`, [hook.id]);
    await sql(`DELETE FROM ${webhookEndpoints} WHERE url = 'https://raw'`);
    await sql(`UPDATE ${acmeAccounts} SET status = 'deactivated' WHERE id = ?`, [account.id]);
    await sql(`INSERT INTO ${acmePolicies} (ca_id, eab_required, allow, deny, updated) VALUES (?, true, '[]', '[]', now())`, [ca.id]);
    await sql(`UPDATE ${acmePolicies} SET allow = '["raw.example"]' WHERE ca_id = ?`, [ca.id]);
    await sql(`INSERT INTO ${acmeEabKeys} (kid, ca_id, sealed, created) VALUES ('raw', ?, '{}', now())`, [ca.id]);
    await sql(`INSERT INTO ${enrolmentEndpoints} (protocol, label, ca_id) VALUES ('EST', 'raw', ?)`, [ca.id]);
    await sql(`UPDATE ${enrolmentEndpoints} SET enabled = false WHERE label = 'raw'`);
    await sql(`DELETE FROM ${enrolmentEndpoints} WHERE protocol = 'EST' AND label = 'raw'`);
    await sql(`UPDATE ${enrolmentRequests} SET status = 'refused', reason = 'raw', decided = now() WHERE id = ?`, [request!.id]);
    expect(await eventsAfter(after)).toEqual([]);
  });
});
