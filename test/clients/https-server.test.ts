/**
 * The example server speaking HTTPS itself (TLS_CERT_FILE, TLS_KEY_FILE: a certificate for localhost
 * and 127.0.0.1 that openssl makes here under a test CA): lego (LEGO_CA_CERTIFICATES) and certbot
 * (REQUESTS_CA_BUNDLE) trust that CA and get their certificates over an `https://` directory. Without
 * the CA, lego refuses the server. (The OCSP and CA-issuer URLs in the certificates are http:// on the
 * same TLS port — the walk-through says so — so OCSP is the other files' business.)
 */
import * as fs from 'fs';
import * as path from 'path';
import { type TestDnsServer } from '../helpers/dns-server';
import {
  certbot,
  certbotStandaloneArgs,
  certificateFilesUnder,
  describeWith,
  expectSuccess,
  lego,
  opensslVerify,
  subjectAltName,
  type AcmeExample,
} from './harness';
import { startClientLab, type ClientLab } from './lab';

describeWith(['certbot', 'lego', 'openssl'], 'ACME clients against the example server over HTTPS', () => {
  let lab: ClientLab;
  let dir: string;
  let dns: TestDnsServer;
  let http01Port: number;
  let tlsCa: string;
  let example: AcmeExample;

  beforeAll(async () => {
    lab = await startClientLab('https', { tls: true, env: (tls) => ({ TLS_CERT_FILE: tls!.cert, TLS_KEY_FILE: tls!.key }) });
    ({ dir, dns, http01Port, example } = lab);
    tlsCa = lab.tls!.ca;
  });
  afterAll(() => lab?.close());

  test('lego (LEGO_CA_CERTIFICATES): refused without the CA; with it, a certificate and https:// URLs for it and the account', async () => {
    expect(example.directory).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/django_ca\/acme\/directory\/[0-9A-F]+\/$/);
    const origin = new URL(example.directory).origin;
    dns.setA('lego-https.example.test', ['127.0.0.1']);
    const args = ['--domains', 'lego-https.example.test', '--http', '--http.port', `127.0.0.1:${http01Port}`, 'run'];

    const untrusted = await lego(example.directory, path.join(dir, 'lego-untrusted'), args, { LEGO_CA_CERTIFICATES: undefined });
    expect(untrusted.code).not.toBe(0);
    expect(untrusted.out).toContain('x509: certificate signed by unknown authority');
    expect(certificateFilesUnder(path.join(dir, 'lego-untrusted'))).toEqual([]);

    const home = path.join(dir, 'lego');
    expectSuccess('lego run over HTTPS', await lego(example.directory, home, args, { LEGO_CA_CERTIFICATES: tlsCa }));
    const cert = path.join(home, 'certificates', 'lego-https.example.test.crt');
    const issuer = path.join(home, 'certificates', 'lego-https.example.test.issuer.crt');
    expect(await opensslVerify(example.rootPem, issuer, cert)).toBe(`${cert}: OK\n`);
    expect(await subjectAltName(cert)).toContain('DNS:lego-https.example.test');
    // What lego kept of the server's URLs: the certificate's and the account's.
    const resource = JSON.parse(fs.readFileSync(path.join(home, 'certificates', 'lego-https.example.test.json'), 'utf8')) as {
      certUrl: string;
    };
    expect(resource.certUrl).toMatch(new RegExp(`^${origin}/django_ca/acme/[0-9A-F]+/cert/[A-Za-z0-9_-]+/$`));
    const [account] = legoAccounts(home);
    expect(account.registration.uri).toMatch(new RegExp(`^${origin}/django_ca/acme/[0-9A-F]+/acct/[A-Za-z0-9_-]+/$`));
  });

  test('certbot (REQUESTS_CA_BUNDLE): a certificate over HTTPS', async () => {
    const home = path.join(dir, 'certbot');
    dns.setA('certbot-https.example.test', ['127.0.0.1']);
    const result = await certbot(example.directory, home, certbotStandaloneArgs(http01Port, ['certbot-https.example.test']), {
      REQUESTS_CA_BUNDLE: tlsCa,
    });
    expectSuccess('certbot certonly over HTTPS', result);
    const live = path.join(home, 'config', 'live', 'certbot-https.example.test');
    expect(await opensslVerify(example.rootPem, path.join(live, 'chain.pem'), path.join(live, 'cert.pem'))).toBe(
      `${path.join(live, 'cert.pem')}: OK\n`,
    );
  });
});

/** lego's account files (`accounts/<server>/<email>/account.json`). */
function legoAccounts(home: string): { registration: { uri: string } }[] {
  const root = path.join(home, 'accounts');
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((f) => f.endsWith('account.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(root, f), 'utf8')) as { registration: { uri: string } });
}
