/**
 * certbot (Debian's, 2.x) against the example server with CA_ENABLE_ACME: http-01 with its standalone
 * server for two names, dns-01 through manual auth and cleanup hooks that write the test DNS server's
 * records file, `revoke` seen by OCSP and the REST API, and a challenge that fails — the client shows
 * the server's error and writes no certificate. The server's validator asks the test DNS server for
 * every name (CA_ACME_DNS_SERVERS) and fetches http-01 from the port certbot listens on
 * (CA_ACME_HTTP01_PORT). Each test has its own certbot directories and account.
 */
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import { TYPE, type TestDnsServer } from '../helpers/dns-server';
import { closeServer } from '../helpers/sockets';
import {
  certbot as runCertbot,
  certbotDnsHooks,
  certbotStandaloneArgs,
  certificateFilesUnder,
  describeWith,
  expectSuccess,
  hookCalls,
  opensslOcsp,
  opensslVerify,
  pemCertificates,
  restCertificate,
  serialOf,
  subjectAltName,
  type AcmeExample,
  expectRevokedEverywhere,
} from './harness';
import { startClientLab, type ClientLab } from './lab';

describeWith(['certbot', 'openssl'], 'certbot against the example server', () => {
  let lab: ClientLab;
  let dir: string;
  let dns: TestDnsServer;
  let records: string;
  let http01Port: number;
  let example: AcmeExample;

  beforeAll(async () => {
    lab = await startClientLab('certbot');
    ({ dir, dns, records, http01Port, example } = lab);
  });
  afterAll(() => lab?.close());

  const certbot = (home: string, args: string[]) => runCertbot(example.directory, home, args);
  /** `certbot certonly --standalone` on 127.0.0.1 and the port the server's validator fetches from. */
  const standalone = (home: string, names: string[]) => certbot(home, certbotStandaloneArgs(http01Port, names));

  /** The files certbot keeps for a lineage, checked: chain of intermediate + root, the leaf verifies. */
  async function lineage(home: string, name: string): Promise<{ cert: string; chain: string }> {
    const live = path.join(home, 'config', 'live', name);
    const cert = path.join(live, 'cert.pem');
    const chain = path.join(live, 'chain.pem');
    expect(pemCertificates(fs.readFileSync(cert, 'utf8'))).toHaveLength(1);
    expect(pemCertificates(fs.readFileSync(chain, 'utf8'))).toHaveLength(2);
    expect(pemCertificates(fs.readFileSync(path.join(live, 'fullchain.pem'), 'utf8'))).toHaveLength(3);
    expect(await opensslVerify(example.rootPem, chain, cert)).toBe(`${cert}: OK\n`);
    return { cert, chain };
  }

  const asked = (name: string, type: number) => dns.queries.some((q) => q.name === name && q.type === type);

  test('http-01 (standalone) for two names: one certificate for both, verified up to the root', async () => {
    const home = path.join(dir, 'http01');
    for (const name of ['a.example.test', 'b.example.test']) dns.setA(name, ['127.0.0.1']);
    const result = await standalone(home, ['a.example.test', 'b.example.test']);
    expectSuccess('certbot certonly --standalone', result);
    expect(result.out).toContain('Successfully received certificate.');
    const { cert, chain } = await lineage(home, 'a.example.test');
    expect(await subjectAltName(cert)).toContain('DNS:a.example.test, DNS:b.example.test');
    // The validator looked both names up through the test DNS server.
    expect([asked('a.example.test', TYPE.A), asked('b.example.test', TYPE.A)]).toEqual([true, true]);
    expect((await opensslOcsp(cert, chain, example.rootPem, home)).status).toBe('good');
  });

  test('dns-01 with manual hooks for a name and its wildcard: TXT records written, validated, removed', async () => {
    const home = path.join(dir, 'dns01');
    fs.mkdirSync(home);
    const hooks = certbotDnsHooks(home, records);
    const result = await certbot(home, [
      'certonly',
      '--manual',
      '--preferred-challenges',
      'dns',
      '--manual-auth-hook',
      hooks.auth,
      '--manual-cleanup-hook',
      hooks.cleanup,
      '-d',
      'd.example.test',
      '-d',
      '*.d.example.test',
      '--register-unsafely-without-email',
      '--agree-tos',
    ]);
    expectSuccess('certbot certonly --manual', result);
    const { cert } = await lineage(home, 'd.example.test');
    expect(await subjectAltName(cert)).toContain('DNS:d.example.test, DNS:*.d.example.test');
    // Two validations at one name (RFC 8555 §8.4), each added by the auth hook and removed by the cleanup hook.
    const calls = hookCalls(records).filter((c) => c.includes(' _acme-challenge.d.example.test '));
    expect(calls.map((c) => c.split(' ')[0])).toEqual(['add', 'add', 'remove', 'remove']);
    expect(new Set(calls.map((c) => c.split(' ')[2])).size).toBe(2);
    expect(asked('_acme-challenge.d.example.test', TYPE.TXT)).toBe(true);
    expect(JSON.parse(fs.readFileSync(records, 'utf8'))).not.toHaveProperty(['_acme-challenge.d.example.test']);
  });

  test('revoke --reason keycompromise: OCSP and the REST API say revoked, key compromise', async () => {
    const home = path.join(dir, 'revoke');
    dns.setA('r.example.test', ['127.0.0.1']);
    expectSuccess('certbot certonly --standalone', await standalone(home, ['r.example.test']));
    const { cert, chain } = await lineage(home, 'r.example.test');
    const serial = await serialOf(cert);
    expect((await opensslOcsp(cert, chain, example.rootPem, home)).status).toBe('good');
    expect(await restCertificate(example, serial)).toMatchObject({ revoked: false });

    const result = await certbot(home, ['revoke', '--cert-path', cert, '--reason', 'keycompromise', '--no-delete-after-revoke']);
    expectSuccess('certbot revoke', result);
    expect(result.out).toContain('successfully revoked the certificate');
    await expectRevokedEverywhere(example, { cert, chain, serial, workDir: home }, { ocsp: 'keyCompromise', rest: 'key_compromise' });
  });

  test("a failed http-01 challenge: certbot exits non-zero with the server's detail, and no certificate", async () => {
    const home = path.join(dir, 'failed');
    // The name points at 127.0.0.2, where another web server answers 404 — certbot listens on 127.0.0.1.
    dns.setA('fail.example.test', ['127.0.0.2']);
    const seen: string[] = [];
    const other = http.createServer((req, res) => {
      seen.push(`${req.headers.host} ${req.url}`);
      res.writeHead(404).end('not here');
    });
    await new Promise<void>((resolve) => other.listen(http01Port, '127.0.0.2', resolve));
    let result;
    try {
      result = await standalone(home, ['fail.example.test']);
    } finally {
      await closeServer(other);
    }
    expect(result.code).not.toBe(0);
    expect(seen).toEqual([expect.stringMatching(/^fail\.example\.test \/\.well-known\/acme-challenge\/[A-Za-z0-9_-]{43}$/)]);
    const detail = new RegExp(
      `127\\.0\\.0\\.2:${http01Port}: http://fail\\.example\\.test/\\.well-known/acme-challenge/[A-Za-z0-9_-]{43} answered HTTP 404 \\(expected 200 with the key authorization\\)`,
    );
    expect(result.out).toContain('Type:   incorrectResponse');
    expect(result.out).toMatch(detail);
    expect(fs.readFileSync(path.join(home, 'logs', 'letsencrypt.log'), 'utf8')).toMatch(detail);
    expect(certificateFilesUnder(path.join(home, 'config'))).toEqual([]);
    expect(fs.existsSync(path.join(home, 'config', 'live', 'fail.example.test'))).toBe(false);
  });
});
