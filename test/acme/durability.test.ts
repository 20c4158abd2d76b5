/**
 * The ACME server's work is durable and shared (docs/guides/acme.md): two instances on one PostgreSQL serve
 * one client alternately — every nonce accepted once, by whichever instance — and complete its
 * orders; a validation left by a stopped server is finished by the next one on the same database;
 * eight orders of one account at once all complete.
 */
import * as acme from 'acme-client';
import crypto from 'crypto';
import { knexStore } from '../../adapters/store/knex';
import { jwkThumbprint, type PublicJwk } from '../../lib/acme/jwk';
import { WireClient, problemType } from '../helpers/acme-wire';
import { describeOnPostgres, openSecondPool, openTestDatabase, testDatabaseTargets } from '../helpers/database';
import { issueWithAcmeClient, startAcmeServer, type AcmeFixture } from './fixture';

jest.setTimeout(90_000);

async function autoIssue(client: acme.Client, server: AcmeFixture, name: string): Promise<string> {
  return (await issueWithAcmeClient(client, server, name)).chain;
}

describe.each(testDatabaseTargets())('ACME durability ($name)', (target) => {
  test('eight orders of one account at once all complete', async () => {
    const server = await startAcmeServer(target);
    try {
      const client = new acme.Client({ directoryUrl: server.directory, accountKey: await acme.crypto.createPrivateEcdsaKey() });
      await client.createAccount({ termsOfServiceAgreed: true });
      const chains = await Promise.all(Array.from({ length: 8 }, (_, i) => autoIssue(client, server, `c${i}.concurrent.example.com`)));
      const serials = chains.map(
        (chain) => new crypto.X509Certificate(chain.slice(0, chain.indexOf('-----END CERTIFICATE-----') + 25)).serialNumber,
      );
      expect(new Set(serials).size).toBe(8);
    } finally {
      await server.close();
    }
  });

  test('a validation left by a stopped server is finished by the next one on the same database', async () => {
    const db = await openTestDatabase(target);
    const first = await startAcmeServer(target, { validationRetryMs: 1500 }, { db });
    const c = await new WireClient(first.directory).init();
    await c.register();
    // No address for the name yet: the first attempt fails with a `dns` problem, which is retried.
    const order = await c.post(c.directory.newOrder, { identifiers: [{ type: 'dns', value: 'later.example.com' }] });
    const authzUrl = (order.body as { authorizations: string[] }).authorizations[0];
    const challenge = (
      (await c.post(authzUrl, undefined)).body as { challenges: { type: string; url: string; token: string }[] }
    ).challenges.find((ch) => ch.type === 'http-01');
    if (!challenge) throw new Error('no http-01');
    const started = await c.post(challenge.url, {});
    expect(started.body).toMatchObject({ status: 'processing', error: { type: 'urn:ietf:params:acme:error:dns' } });
    expect(started.headers.get('retry-after')).toBe('1');
    await first.close(); // the runner stops with the attempt still to come

    const second = await startAcmeServer(target, {}, { db: first.db, root: first.root, ca: first.ca });
    try {
      second.dns.setA('later.example.com', ['127.0.0.1']);
      const keyAuthorization = `${challenge.token}.${jwkThumbprint(c.key.jwk as unknown as PublicJwk)}`;
      second.http01.set(challenge.token, keyAuthorization);
      const deadline = Date.now() + 15_000;
      let status = 'processing';
      const watcher = await new WireClient(second.directory, c.key).init();
      watcher.kid = (c.kid as string).replace(first.base, second.base);
      while (status === 'processing' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 300));
        status = ((await watcher.post(challenge.url.replace(first.base, second.base), undefined)).body as { status: string }).status;
      }
      expect(status).toBe('valid');
    } finally {
      await second.close();
      await db.close();
    }
  });
});

// Two instances share a database only on PostgreSQL (PGlite is one process's): without it, skipped
// locally and failed in CI.
describeOnPostgres('ACME durability (two instances)', (target) => {
  test('two instances on one PostgreSQL: a client alternating between them completes orders, and no nonce is accepted twice', async () => {
    const a = await startAcmeServer(target);
    const second = knexStore(openSecondPool(target.url, a.db.knex));
    const b = await startAcmeServer(target, {}, { db: a.db, root: a.root, ca: a.ca, store: second });
    try {
      const viaA = await new WireClient(a.directory).init();
      await viaA.register();
      const viaB = await new WireClient(b.directory, viaA.key).init();
      viaB.kid = (viaA.kid as string).replace(a.base, b.base);
      // A nonce minted by A is good once at B, then refused at A and at B.
      const nonce = await viaA.freshNonce();
      const once = await viaB.post(viaB.directory.newOrder, { identifiers: [{ type: 'dns', value: 'n.example.com' }] }, { nonce });
      expect(once.status).toBe(201);
      for (const [client, server] of [
        [viaA, a],
        [viaB, b],
      ] as const) {
        const again = await client.post(client.directory.newOrder, { identifiers: [{ type: 'dns', value: 'n.example.com' }] }, { nonce });
        expect([server.base, problemType(again)]).toEqual([server.base, 'urn:ietf:params:acme:error:badNonce']);
      }
      // acme-client through each instance in turn, sharing one account key.
      const key = await acme.crypto.createPrivateEcdsaKey();
      for (const [i, server] of [a, b, a, b].entries()) {
        server.dns.setA(`alt${i}.example.com`, ['127.0.0.1']);
        const client = new acme.Client({ directoryUrl: server.directory, accountKey: key });
        await client.createAccount({ termsOfServiceAgreed: true });
        const chain = await autoIssue(client, server, `alt${i}.example.com`);
        expect(chain).toContain('BEGIN CERTIFICATE');
      }
    } finally {
      await b.close();
      await second.close();
      await a.close();
    }
  });
});
