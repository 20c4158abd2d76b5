/**
 * ACME revocation (RFC 8555 §7.6) and renewal information (RFC 9773): by the ordering account (with
 * acme-client, a reason given) and by the certificate's own key (a raw JWS with `jwk`), each seen at
 * once by OCSP through the server (`openssl ocsp`), `alreadyRevoked` after, refusals for another
 * account and another key; ARI's window, moved to now by the revocation.
 */
import * as acme from 'acme-client';
import { execFile, spawnSync } from 'child_process';
import { promisify } from 'util';
import crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pemEncode } from '../../lib/x509/pem';
import { hasEventLog } from '../../lib/ports';
import { WireClient, problemType, type WireKey } from '../helpers/acme-wire';
import { testDatabaseTargets } from '../helpers/database';
import { issueWithAcmeClient, startAcmeServer, type AcmeFixture } from './fixture';

jest.setTimeout(60_000);
const execFileAsync = promisify(execFile);

describe.each(testDatabaseTargets())('ACME revocation and renewal information ($name)', (target) => {
  let server: AcmeFixture;
  let dir: string;

  beforeAll(async () => {
    server = await startAcmeServer(target);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acme-revoke-'));
    fs.writeFileSync(path.join(dir, 'ca.pem'), pemEncode(server.ca.der, 'CERTIFICATE'));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A certificate for `name` through acme-client; its key as PEM. */
  async function issue(client: acme.Client, name: string): Promise<{ pem: string; key: string }> {
    const { chain, key } = await issueWithAcmeClient(client, server, name);
    return { pem: chain.slice(0, chain.indexOf('-----END CERTIFICATE-----') + 26), key };
  }

  /** openssl asks the server in this process: run it without blocking the event loop that answers it. */
  async function ocspStatus(pem: string): Promise<string> {
    fs.writeFileSync(path.join(dir, 'leaf.pem'), pem);
    const url = `${server.base}/django_ca/ocsp/${server.ca.serial}/cert/`;
    const { stdout } = await execFileAsync(
      'openssl',
      ['ocsp', '-issuer', 'ca.pem', '-cert', 'leaf.pem', '-url', url, '-noverify', '-no_nonce'],
      { cwd: dir },
    );
    return stdout;
  }

  const newClient = async (): Promise<acme.Client> => {
    const client = new acme.Client({ directoryUrl: server.directory, accountKey: await acme.crypto.createPrivateEcdsaKey() });
    await client.createAccount({ termsOfServiceAgreed: true });
    return client;
  };

  test('by the ordering account with a reason: OCSP says revoked at once; again is alreadyRevoked; another account may not', async () => {
    const owner = await newClient();
    const { pem } = await issue(owner, 'revoke-me.example.com');
    expect(await ocspStatus(pem)).toContain('leaf.pem: good');
    const other = await newClient();
    await expect(other.revokeCertificate(pem)).rejects.toThrow(/did not order/);
    await owner.revokeCertificate(pem, { reason: 4 });
    expect(await ocspStatus(pem)).toMatch(/leaf.pem: revoked[\s\S]*Reason: superseded/);
    // The audit log names the account, the way in and the client's address (docs/operations/audit-and-events.md "Audit").
    const events = hasEventLog(server.store) ? await server.store.eventsSince(0, 1000) : [];
    expect(events.filter((e) => e.type === 'certificate.revoked').map((e) => e.actor)).toEqual([
      { type: 'acme_account', id: expect.any(Number), protocol: 'acme', address: expect.stringMatching(/127\.0\.0\.1|::1/) },
    ]);
    await expect(owner.revokeCertificate(pem)).rejects.toThrow(/already revoked/);
  });

  test("by the certificate's own key (jwk), and not by another key; an unknown reason is badRevocationReason", async () => {
    const owner = await newClient();
    const { pem, key } = await issue(owner, 'own-key.example.com');
    const der = new crypto.X509Certificate(pem).raw.toString('base64url');
    // acme-client made an RSA key for the CSR.
    const privateKey = crypto.createPrivateKey(key);
    const pub = crypto.createPublicKey(privateKey).export({ format: 'jwk' }) as Record<string, string>;
    const certificateKey: WireKey = { privateKey, jwk: { kty: 'RSA', n: pub.n, e: pub.e }, alg: 'RS256' };
    const wire = await new WireClient(server.directory, certificateKey).init();
    const badReason = await wire.post(wire.directory.revokeCert, { certificate: der, reason: 7 }, { useJwk: true });
    expect(problemType(badReason)).toBe('urn:ietf:params:acme:error:badRevocationReason');
    const stranger = await new WireClient(server.directory).init();
    const refused = await stranger.post(stranger.directory.revokeCert, { certificate: der }, { useJwk: true });
    expect([refused.status, (refused.body as { detail: string }).detail]).toEqual([403, 'Request signed by the wrong certificate.']);
    const done = await wire.post(wire.directory.revokeCert, { certificate: der, reason: 1 }, { useJwk: true });
    expect(done.status).toBe(200);
    expect(await ocspStatus(pem)).toMatch(/revoked[\s\S]*Reason: keyCompromise/);
  });

  test('renewal information: the last third of the life, then now once revoked', async () => {
    const owner = await newClient();
    const { pem } = await issue(owner, 'ari.example.com');
    const cert = new crypto.X509Certificate(pem);
    const aki = /((?:[0-9A-F]{2}:)+[0-9A-F]{2})/i.exec(
      spawnSync('openssl', ['x509', '-noout', '-ext', 'authorityKeyIdentifier'], { input: pem }).stdout.toString(),
    );
    const akiB64 = Buffer.from((aki?.[1] ?? '').replace(/:/g, ''), 'hex').toString('base64url');
    const serialB64 = Buffer.from(cert.serialNumber.length % 2 ? `0${cert.serialNumber}` : cert.serialNumber, 'hex').toString('base64url');
    const directory = (await (await fetch(server.directory)).json()) as { renewalInfo: string };
    const ask = async () => {
      const res = await fetch(`${directory.renewalInfo}/${akiB64}.${serialB64}`);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      return ((await res.json()) as { suggestedWindow: { start: string; end: string } }).suggestedWindow;
    };
    const before = await ask();
    const notAfter = new Date(cert.validTo).getTime();
    const life = notAfter - new Date(cert.validFrom).getTime();
    expect(Math.abs(new Date(before.start).getTime() - (notAfter - life / 3))).toBeLessThan(2000);
    await owner.revokeCertificate(pem);
    const after = await ask();
    expect(Math.abs(new Date(after.start).getTime() - Date.now())).toBeLessThan(5000);
  });
});
