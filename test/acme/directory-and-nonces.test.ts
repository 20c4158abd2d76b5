/**
 * ACME's entry points (RFC 8555 §7.1.1, §7.2, §6.2–§6.5): the directory of one CA and of the default
 * CA, unknown and unusable CAs as 404 problems, nonces (HEAD 200, GET 204, single use, refused
 * reuse answered `badNonce` with a fresh nonce), and the checks every POST passes first.
 */
import { testDatabaseTargets } from '../helpers/database';
import { WireClient, newKey, problemType, send, signJws } from '../helpers/acme-wire';
import { startAcmeServer, type AcmeFixture } from './fixture';

describe.each(testDatabaseTargets())('ACME directory, nonces and request checks ($name)', (target) => {
  let server: AcmeFixture;
  let client: WireClient;
  const acmeRoot = () => `${server.base}/django_ca/acme/`;

  beforeAll(async () => {
    server = await startAcmeServer(target);
    client = await new WireClient(server.directory).init();
  });
  afterAll(() => server?.close());

  test('the directory names every resource under the CA, keyChange and renewalInfo included, without a nonce', async () => {
    const answer = await send(server.directory);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.headers.get('replay-nonce')).toBeNull();
    const body = answer.body as Record<string, string>;
    const ca = `${acmeRoot()}${server.ca.serial}/`;
    expect(body).toMatchObject({
      newNonce: `${ca}new-nonce/`,
      newAccount: `${ca}new-account/`,
      newOrder: `${ca}new-order/`,
      revokeCert: `${ca}revoke/`,
      keyChange: `${ca}key-change/`,
      renewalInfo: `${ca}renewal-info`,
    });
  });

  test('directory/ serves the default CA; a CA without ACME, or unknown, is a 404 problem', async () => {
    expect(((await send(`${acmeRoot()}directory/`)).body as Record<string, string>).newOrder).toContain(server.ca.serial);
    for (const serial of [server.root.serial, 'ABCDEF']) {
      const answer = await send(`${acmeRoot()}directory/${serial}/`);
      expect(answer.status).toBe(404);
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
      expect(problemType(answer)).toBe('urn:ietf:params:acme:error:not-found');
    }
  });

  test('new-nonce: HEAD 200 and GET 204, each with a fresh nonce, no-store and the index link', async () => {
    const head = await fetch(client.directory.newNonce, { method: 'HEAD' });
    const get = await fetch(client.directory.newNonce);
    expect([head.status, get.status]).toEqual([200, 204]);
    for (const res of [head, get]) {
      expect(res.headers.get('replay-nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('link')).toBe(`<${server.directory}>;rel="index"`);
    }
    expect(head.headers.get('replay-nonce')).not.toBe(get.headers.get('replay-nonce'));
  });

  test('a nonce is accepted once: its reuse is badNonce, with a fresh nonce to retry with', async () => {
    const nonce = await client.freshNonce();
    const first = await client.post(client.directory.newAccount, { termsOfServiceAgreed: true }, { useJwk: true, nonce });
    expect(first.status).toBe(201);
    const again = await client.post(client.directory.newAccount, { termsOfServiceAgreed: true }, { useJwk: true, nonce });
    expect(again.status).toBe(400);
    expect(problemType(again)).toBe('urn:ietf:params:acme:error:badNonce');
    expect(again.headers.get('replay-nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const retried = await client.post(client.directory.newAccount, { termsOfServiceAgreed: true }, { useJwk: true });
    expect(retried.status).toBe(200);
  });

  test('a read (POST-as-GET) with a used nonce is badNonce too, whatever the read would have answered', async () => {
    const owner = await new WireClient(server.directory).init();
    await owner.register();
    const order = await owner.post(owner.directory.newOrder, { identifiers: [{ type: 'dns', value: 'reads.example.com' }] });
    const orderUrl = order.headers.get('location') as string;
    const authzUrl = (order.body as { authorizations: string[] }).authorizations[0];
    const accountUrl = owner.kid as string;
    const stranger = await new WireClient(server.directory).init();
    await stranger.register();
    for (const [who, url] of [
      [owner, orderUrl], // postAsGet route
      [owner, authzUrl], // readsOnPostAsGet routes
      [owner, accountUrl],
      [stranger, authzUrl], // would be unauthorized
      [owner, `${server.base}/django_ca/acme/${server.ca.serial}/order/nosuchorder/`], // would be unauthorized
    ] as const) {
      const nonce = await who.freshNonce();
      const first = await who.post(url, undefined, { nonce });
      const again = await who.post(url, undefined, { nonce });
      expect([url, problemType(again)]).toEqual([url, 'urn:ietf:params:acme:error:badNonce']);
      expect(first.status === 200 || problemType(first) === 'urn:ietf:params:acme:error:unauthorized').toBe(true);
    }
    // With a fresh nonce the read answers.
    expect((await owner.post(orderUrl, undefined)).status).toBe(200);
  });

  test('the checks before any handler: content type, url, jwk/kid, signature', async () => {
    const url = client.directory.newAccount;
    const key = newKey();
    const nonce = await client.freshNonce();
    const wrongType = await send(url, { body: signJws(key, { nonce, url, jwk: key.jwk }, {}), contentType: 'application/json' });
    expect([wrongType.status, problemType(wrongType)]).toEqual([415, 'urn:ietf:params:acme:error:malformed']);
    expect(wrongType.headers.get('replay-nonce')).toBeTruthy();

    const wrongUrl = await client.post(url, {}, { useJwk: true, headerUrl: `${url}?x` });
    expect([wrongUrl.status, problemType(wrongUrl)]).toEqual([403, 'urn:ietf:params:acme:error:unauthorized']);

    const kidOnNewAccount = await send(url, { body: signJws(key, { nonce: await client.freshNonce(), url, kid: `${url}x` }, {}) });
    expect((kidOnNewAccount.body as { detail: string }).detail).toBe('Request requires a full JWK key.');

    const jwkOnNewOrder = await client.post(
      client.directory.newOrder,
      { identifiers: [{ type: 'dns', value: 'a.example' }] },
      { useJwk: true },
    );
    expect((jwkOnNewOrder.body as { detail: string }).detail).toBe('Request requires a JWK key ID.');

    const forged = signJws(key, { nonce: await client.freshNonce(), url, jwk: newKey().jwk }, {});
    const badSignature = await send(url, { body: forged });
    expect([badSignature.status, problemType(badSignature)]).toEqual([400, 'urn:ietf:params:acme:error:malformed']);

    const unknownKid = await send(client.directory.newOrder, {
      body: signJws(
        key,
        { nonce: await client.freshNonce(), url: client.directory.newOrder, kid: `${acmeRoot()}${server.ca.serial}/acct/nobody/` },
        {},
      ),
    });
    expect(problemType(unknownKid)).toBe('urn:ietf:params:acme:error:accountDoesNotExist');
  });

  test('a GET on a POST resource is a 405 problem with Allow; a path without its slash is redirected; one that names nothing is a 404 problem', async () => {
    const answer = await send(client.directory.newOrder);
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    const noSlash = await fetch(server.directory.slice(0, -1), { redirect: 'manual' });
    expect([noSlash.status, noSlash.headers.get('location')]).toEqual([301, new URL(server.directory).pathname]);
    const nothing = await send(`${acmeRoot()}nothing/here/`);
    expect([nothing.status, problemType(nothing)]).toEqual([404, 'urn:ietf:params:acme:error:not-found']);
  });

  test('EdDSA (Ed25519, Ed448) and RS256 account keys register and sign orders', async () => {
    for (const kind of ['ed25519', 'ed448', 'rsa'] as const) {
      const other = await new WireClient(server.directory, newKey(kind)).init();
      expect([kind, (await other.register()).status]).toEqual([kind, 201]);
      const order = await other.post(other.directory.newOrder, { identifiers: [{ type: 'dns', value: `${kind}.example.com` }] });
      expect([kind, order.status]).toEqual([kind, 201]);
    }
  });
});
