/**
 * What a CA allows through ACME (docs/guides/acme.md): external account binding (RFC 8555 §7.3.4) required
 * and advertised, a key made by the operator binding one account (acme-client), refused without a
 * binding, with a wrong MAC, or a second time; and the CA's name policy (allow and deny lists of DNS
 * suffixes and IP networks) refusing identifiers at new-order with one subproblem each.
 */
import * as acme from 'acme-client';
import { randomBytes } from 'crypto';
import { kekSecretBox } from '../../adapters/keys/secret-box';
import { loadKek } from '../../adapters/keys/kek';
import { createAcmeEabKey } from '../../lib/acme/eab/create-key';
import { WireClient, problemType } from '../helpers/acme-wire';
import { testDatabaseTargets } from '../helpers/database';
import { KEK, startAcmeServer, type AcmeFixture } from './fixture';

describe.each(testDatabaseTargets())('ACME external account binding and name policy ($name)', (target) => {
  let server: AcmeFixture;
  const box = kekSecretBox(loadKek(KEK) as NonNullable<ReturnType<typeof loadKek>>);

  beforeAll(async () => {
    server = await startAcmeServer(target, { eabSecrets: box });
  });
  afterAll(() => server?.close());
  afterEach(() => server.store.acme.setPolicy(server.ca.id, { eabRequired: false, allow: [], deny: [] }));

  test('required: advertised in the directory; no binding → externalAccountRequired; a key binds one account, once', async () => {
    await server.store.acme.setPolicy(server.ca.id, { eabRequired: true });
    const directory = (await (await fetch(server.directory)).json()) as { meta: Record<string, unknown> };
    expect(directory.meta.externalAccountRequired).toBe(true);

    const without = await new WireClient(server.directory).init();
    expect(problemType(await without.register())).toBe('urn:ietf:params:acme:error:externalAccountRequired');

    const { kid, hmac } = await createAcmeEabKey(server.store.acme, box, server.ca);
    const stored = await server.store.acme.findEabKey(server.ca.id, kid);
    expect(JSON.stringify(stored?.sealed)).not.toContain(hmac);

    const wrongMac = new acme.Client({
      directoryUrl: server.directory,
      accountKey: await acme.crypto.createPrivateEcdsaKey(),
      externalAccountBinding: { kid, hmacKey: randomBytes(32).toString('base64url') },
    });
    await expect(wrongMac.createAccount({ termsOfServiceAgreed: true })).rejects.toThrow(/MAC does not verify/);

    const bound = new acme.Client({
      directoryUrl: server.directory,
      accountKey: await acme.crypto.createPrivateEcdsaKey(),
      externalAccountBinding: { kid, hmacKey: hmac },
    });
    await bound.createAccount({ termsOfServiceAgreed: true });
    const account = await server.store.acme.findAccount(server.ca.id, bound.getAccountUrl().split('/').at(-2) as string);
    expect(account?.eabKid).toBe(kid);
    expect((await server.store.acme.findEabKey(server.ca.id, kid))?.accountId).toBe(account?.id);

    const second = new acme.Client({
      directoryUrl: server.directory,
      accountKey: await acme.crypto.createPrivateEcdsaKey(),
      externalAccountBinding: { kid, hmacKey: hmac },
    });
    await expect(second.createAccount({ termsOfServiceAgreed: true })).rejects.toThrow(/unknown or already used/);
  });

  test('a binding key sealed under another key-encryption key is refused (unauthorized), not a server error', async () => {
    await server.store.acme.setPolicy(server.ca.id, { eabRequired: true });
    const otherBox = kekSecretBox(loadKek(randomBytes(32).toString('base64')) as NonNullable<ReturnType<typeof loadKek>>);
    const { kid, hmac } = await createAcmeEabKey(server.store.acme, otherBox, server.ca);
    const client = new acme.Client({
      directoryUrl: server.directory,
      accountKey: await acme.crypto.createPrivateEcdsaKey(),
      externalAccountBinding: { kid, hmacKey: hmac },
    });
    await expect(client.createAccount({ termsOfServiceAgreed: true })).rejects.toThrow(/cannot be used any more/);
  });

  test('the name policy: denied names and names outside the allow list are rejectedIdentifier, one subproblem each', async () => {
    await server.store.acme.setPolicy(server.ca.id, { allow: ['example.internal', '10.0.0.0/8'], deny: ['secret.example.internal'] });
    const c = await new WireClient(server.directory).init();
    await c.register();
    const order = (values: [string, string][]) =>
      c.post(c.directory.newOrder, { identifiers: values.map(([type, value]) => ({ type, value })) });
    expect(
      (
        await order([
          ['dns', 'a.example.internal'],
          ['dns', '*.b.example.internal'],
          ['ip', '10.1.2.3'],
        ])
      ).status,
    ).toBe(201);
    const refused = await order([
      ['dns', 'ok.example.internal'],
      ['dns', 'x.secret.example.internal'],
      ['dns', 'example.com'],
      ['ip', '192.0.2.1'],
    ]);
    expect(problemType(refused)).toBe('urn:ietf:params:acme:error:rejectedIdentifier');
    const subproblems = (refused.body as { subproblems: { type: string; identifier: { value: string } }[] }).subproblems;
    expect(subproblems.map((s) => [s.type, s.identifier.value])).toEqual([
      ['urn:ietf:params:acme:error:rejectedIdentifier', 'x.secret.example.internal'],
      ['urn:ietf:params:acme:error:rejectedIdentifier', 'example.com'],
      ['urn:ietf:params:acme:error:rejectedIdentifier', '192.0.2.1'],
    ]);
  });
});
