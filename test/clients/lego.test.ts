/**
 * lego (Debian's, 4.x) against the example server with CA_ENABLE_ACME: http-01 and tls-alpn-01 with
 * its own servers, dns-01 for a wildcard through the `exec` provider writing the test DNS server's
 * records file, `renew` now, `revoke` with a reason seen by OCSP and the REST API, and a challenge that
 * fails — lego shows the server's error and writes no certificate. The server's validator asks the test
 * DNS server for every name (CA_ACME_DNS_SERVERS) and connects to the ports lego listens on
 * (CA_ACME_HTTP01_PORT, CA_ACME_TLS_ALPN01_PORT). Each test has its own lego directory and account.
 */
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import { TYPE, type TestDnsServer } from '../helpers/dns-server';
import { closeServer } from '../helpers/sockets';
import {
  certificateFilesUnder,
  describeWith,
  expectSuccess,
  hookCalls,
  lego as runLego,
  legoExecScript,
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

describeWith(['lego', 'openssl'], 'lego against the example server', () => {
  let lab: ClientLab;
  let dir: string;
  let dns: TestDnsServer;
  let records: string;
  let http01Port: number;
  let tlsAlpnPort: number;
  let example: AcmeExample;

  beforeAll(async () => {
    lab = await startClientLab('lego', { tlsAlpn: true });
    ({ dir, dns, records, http01Port, tlsAlpnPort, example } = lab);
  });
  afterAll(() => lab?.close());

  const lego = (home: string, args: string[], env: Record<string, string> = {}) => runLego(example.directory, home, args, env);
  /** The solvers, on 127.0.0.1 and the ports the server's validator connects to. */
  const solver = {
    http: () => ['--http', '--http.port', `127.0.0.1:${http01Port}`],
    tls: () => ['--tls', '--tls.port', `127.0.0.1:${tlsAlpnPort}`],
  };

  /** lego's files for `name` (`*.` as `_.`), checked: the bundle is leaf + intermediate + root and verifies. */
  async function issued(home: string, name: string): Promise<{ cert: string; issuer: string }> {
    const base = path.join(home, 'certificates', name.replace(/^\*/, '_'));
    const cert = `${base}.crt`;
    const issuer = `${base}.issuer.crt`;
    expect(pemCertificates(fs.readFileSync(cert, 'utf8'))).toHaveLength(3);
    expect(pemCertificates(fs.readFileSync(issuer, 'utf8'))).toHaveLength(2);
    expect(fs.readFileSync(`${base}.key`, 'utf8')).toContain('PRIVATE KEY');
    expect(await opensslVerify(example.rootPem, issuer, cert)).toBe(`${cert}: OK\n`);
    return { cert, issuer };
  }

  const asked = (name: string, type: number) => dns.queries.some((q) => q.name === name && q.type === type);

  test('http-01: a certificate verified up to the root, OCSP good', async () => {
    const home = path.join(dir, 'http01');
    dns.setA('x.example.test', ['127.0.0.1']);
    const result = await lego(home, ['--domains', 'x.example.test', ...solver.http(), 'run']);
    expectSuccess('lego run --http', result);
    expect(result.out).toContain('[x.example.test] acme: use http-01 solver');
    const { cert, issuer } = await issued(home, 'x.example.test');
    expect(await subjectAltName(cert)).toContain('DNS:x.example.test');
    expect(asked('x.example.test', TYPE.A)).toBe(true);
    expect((await opensslOcsp(cert, issuer, example.rootPem, home)).status).toBe('good');
  });

  test('tls-alpn-01: a certificate verified up to the root', async () => {
    const home = path.join(dir, 'tls-alpn01');
    dns.setA('t.example.test', ['127.0.0.1']);
    const result = await lego(home, ['--domains', 't.example.test', ...solver.tls(), 'run']);
    expectSuccess('lego run --tls', result);
    expect(result.out).toContain('[t.example.test] acme: use tls-alpn-01 solver');
    const { cert } = await issued(home, 't.example.test');
    expect(await subjectAltName(cert)).toContain('DNS:t.example.test');
  });

  test('dns-01 for a wildcard through the exec provider: TXT record written, validated, removed', async () => {
    const home = path.join(dir, 'dns01');
    fs.mkdirSync(home);
    const exec = legoExecScript(home, records);
    const result = await lego(
      home,
      ['--domains', '*.w.example.test', '--dns', 'exec', '--dns.resolvers', dns.address, '--dns.disable-cp', 'run'],
      { EXEC_PATH: exec, EXEC_POLLING_INTERVAL: '1' },
    );
    expectSuccess('lego run --dns exec', result);
    const { cert } = await issued(home, '*.w.example.test');
    expect(await subjectAltName(cert)).toMatch(/DNS:\*\.w\.example\.test\n/);
    const calls = hookCalls(records).filter((c) => c.includes(' _acme-challenge.w.example.test '));
    expect(calls.map((c) => c.split(' ')[0])).toEqual(['present', 'cleanup']);
    expect(asked('_acme-challenge.w.example.test', TYPE.TXT)).toBe(true);
    expect(JSON.parse(fs.readFileSync(records, 'utf8'))).not.toHaveProperty(['_acme-challenge.w.example.test']);
  });

  test('renew --days 100000: a new certificate at once, the old one left valid', async () => {
    const home = path.join(dir, 'renew');
    dns.setA('n.example.test', ['127.0.0.1']);
    expectSuccess('lego run', await lego(home, ['--domains', 'n.example.test', ...solver.http(), 'run']));
    const { cert } = await issued(home, 'n.example.test');
    const before = await serialOf(cert);
    const result = await lego(home, ['--domains', 'n.example.test', ...solver.http(), 'renew', '--days', '100000', '--no-random-sleep']);
    expectSuccess('lego renew', result);
    expect(result.out).toMatch(/\[n\.example\.test\] acme: Trying renewal with \d+ hours remaining/);
    await issued(home, 'n.example.test');
    const after = await serialOf(cert);
    expect(after).not.toBe(before);
    expect(await restCertificate(example, before)).toMatchObject({ revoked: false });
    expect(await restCertificate(example, after)).toMatchObject({ revoked: false });
  });

  test('revoke --reason 5: OCSP and the REST API say revoked, cessation of operation', async () => {
    const home = path.join(dir, 'revoke');
    dns.setA('v.example.test', ['127.0.0.1']);
    expectSuccess('lego run', await lego(home, ['--domains', 'v.example.test', ...solver.tls(), 'run']));
    const { cert, issuer } = await issued(home, 'v.example.test');
    const serial = await serialOf(cert);
    expect((await opensslOcsp(cert, issuer, example.rootPem, home)).status).toBe('good');

    const result = await lego(home, ['--domains', 'v.example.test', 'revoke', '--reason', '5', '--keep']);
    expectSuccess('lego revoke', result);
    expect(result.out).toContain('Certificate was revoked.');
    await expectRevokedEverywhere(
      example,
      { cert, chain: issuer, serial, workDir: home },
      { ocsp: 'cessationOfOperation', rest: 'cessation_of_operation' },
    );
  });

  test("a failed http-01 challenge: lego exits non-zero with the server's detail, and no certificate", async () => {
    const home = path.join(dir, 'failed');
    // The name points at 127.0.0.2, where another web server answers with the wrong body — lego listens on 127.0.0.1.
    dns.setA('wrong.example.test', ['127.0.0.2']);
    const other = http.createServer((_req, res) => res.writeHead(200).end('something else'));
    await new Promise<void>((resolve) => other.listen(http01Port, '127.0.0.2', resolve));
    let result;
    try {
      result = await lego(home, ['--domains', 'wrong.example.test', ...solver.http(), 'run']);
    } finally {
      await closeServer(other);
    }
    expect(result.code).not.toBe(0);
    expect(result.out).toContain('urn:ietf:params:acme:error:incorrectResponse');
    expect(result.out).toMatch(
      new RegExp(
        `127\\.0\\.0\\.2:${http01Port}: http://wrong\\.example\\.test/\\.well-known/acme-challenge/[A-Za-z0-9_-]{43}: the body is not the key authorization: expected "[A-Za-z0-9_.-]+", got "something else"`,
      ),
    );
    expect(certificateFilesUnder(home)).toEqual([]);
  });
});
