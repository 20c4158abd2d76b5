/**
 * What an ACME order costs the database (docs/DESIGN.md "ACME"): the SQL statements of one order from
 * new-order to the certificate's download, one request after the other, counted on the store's own
 * connection — and of an authorization's and an account's deactivation. The bounds are the counts
 * measured when the state machine moved to lib/acme/state-machine.ts (the store only applies its
 * decisions, each in one statement): a change that adds a round trip to a step fails here.
 */
import * as acme from 'acme-client';
import crypto from 'crypto';
import { WireClient } from '../helpers/acme-wire';
import { statementsOf, testDatabaseTargets } from '../helpers/database';
import { startAcmeServer, type AcmeFixture } from './fixture';

jest.setTimeout(60_000);

const csrB64 = (csr: Buffer): string => Buffer.from(csr.toString().replace(/-----[^-]+-----|\s/g, ''), 'base64').toString('base64url');

/**
 * The statements of `work` that the requests make, less what varies with timing: the runner's own
 * rounds (claiming due jobs every second) and the reads of the CA
 * and ACME-policy caches, which a miss makes now and then.
 */
async function requestStatements<T>(server: AcmeFixture, work: () => Promise<T>): Promise<{ value: T; statements: string[] }> {
  const { value, statements } = await statementsOf(server.db, work);
  const timed = [
    // The job runner's claim (adapters/store/knex/jobs.ts), every second.
    /^UPDATE ca_api_jobs SET lease_owner = \$1, lease_until = /,
    /^select \* from "ca_api_certificate_authorities"/,
    /^select \* from "ca_api_acme_policies"/,
  ];
  const counted = statements.filter((sql) => !timed.some((t) => t.test(sql)) && !/^(BEGIN|COMMIT|ROLLBACK)\b/i.test(sql));
  return { value, statements: counted };
}

describe.each(testDatabaseTargets())('SQL statements of an ACME order ($name)', (target) => {
  let server: AcmeFixture;

  beforeAll(async () => {
    server = await startAcmeServer(target);
  });
  afterAll(() => server?.close());

  const registered = async (): Promise<WireClient> => {
    const c = await new WireClient(server.directory).init();
    await c.register();
    return c;
  };

  function keyAuthorization(c: WireClient, token: string): string {
    const thumbprint = crypto
      .createHash('sha256')
      .update(JSON.stringify({ crv: c.key.jwk.crv, kty: 'EC', x: c.key.jwk.x, y: c.key.jwk.y }))
      .digest('base64url');
    return `${token}.${thumbprint}`;
  }

  test('one order, new-order to certificate, one request at a time', async () => {
    const c = await registered();
    const name = 'count.example.com';
    server.dns.setA(name, ['127.0.0.1']);
    const [, csr] = await acme.crypto.createCsr({ commonName: name });
    const { value: pem, statements } = await requestStatements(server, async () => {
      const order = await c.post(c.directory.newOrder, { identifiers: [{ type: 'dns', value: name }] });
      const { authorizations, finalize } = order.body as { authorizations: string[]; finalize: string };
      const authz = (await c.post(authorizations[0], undefined)).body as { challenges: { type: string; token: string; url: string }[] };
      const challenge = authz.challenges.find((ch) => ch.type === 'http-01');
      if (!challenge) throw new Error('no http-01');
      server.http01.set(challenge.token, keyAuthorization(c, challenge.token));
      const validated = await c.post(challenge.url, {});
      expect((validated.body as { status: string }).status).toBe('valid');
      const done = await c.post(finalize, { csr: csrB64(csr) });
      expect((done.body as { status: string }).status).toBe('valid');
      return (await c.post((done.body as { certificate: string }).certificate, undefined)).text;
    });
    expect(pem).toContain('BEGIN CERTIFICATE');
    console.log(`${target.name}: ${statements.length} statements for one ACME order\n${statements.join('\n')}`);
    // 15 before the state machine moved to lib/acme, and after.
    expect(statements.length).toBeLessThanOrEqual(15);
  });

  test('deactivating an authorization, then the account', async () => {
    const c = await registered();
    const order = await c.post(c.directory.newOrder, { identifiers: [{ type: 'dns', value: 'deactivate-count.example.com' }] });
    const authzUrl = (order.body as { authorizations: string[] }).authorizations[0];
    const authz = await requestStatements(server, () => c.post(authzUrl, { status: 'deactivated' }));
    expect((authz.value.body as { status: string }).status).toBe('deactivated');
    await c.post(c.directory.newOrder, { identifiers: [{ type: 'dns', value: 'deactivate-count-2.example.com' }] });
    const account = await requestStatements(server, () => c.post(c.kid as string, { status: 'deactivated' }));
    expect((account.value.body as { status: string }).status).toBe('deactivated');
    console.log(
      `${target.name}: ${authz.statements.length} statements to deactivate an authorization\n${authz.statements.join('\n')}\n` +
        `${account.statements.length} to deactivate an account\n${account.statements.join('\n')}`,
    );
    // Before: 5 (the nonce, the read, then two updates and a read in a transaction); now the nonce, the read, one change.
    expect(authz.statements.length).toBeLessThanOrEqual(3);
    // The nonce, the account, its orders' authorizations, its orders, and `acme.account.deactivated`
    // (in a transaction): before, a trigger wrote the event inside the account's UPDATE (migration 0032).
    expect(account.statements.length).toBeLessThanOrEqual(5);
  });
});
