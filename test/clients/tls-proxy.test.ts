/**
 * The example server behind a TLS-terminating proxy: the server speaks plain HTTP with
 * TRUST_PROXY=loopback, and a small proxy written here (node `https` in front, `http` behind) forwards
 * every request with `X-Forwarded-Proto: https` and `X-Forwarded-Host`. certbot
 * (REQUESTS_CA_BUNDLE) and lego (LEGO_CA_CERTIFICATES) talk to the proxy only, and complete; every URL
 * the server hands out on the way — directory, `Location`, `Link`, the URLs in accounts, orders,
 * authorizations and challenges — is `https://` at the proxy's address, which the proxy checks on
 * each answer it passes on.
 */
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';
import * as path from 'path';
import type { AddressInfo } from 'net';
import { type TestDnsServer } from '../helpers/dns-server';
import { closeServer } from '../helpers/sockets';
import { certbot, certbotStandaloneArgs, describeWith, expectSuccess, lego, opensslOcsp, opensslVerify, type AcmeExample } from './harness';
import { startClientLab, type ClientLab } from './lab';

/** One request the proxy passed on: what was asked, the status, and the URLs in the answer's headers and JSON body. */
interface Passed {
  request: string;
  status: number;
  urls: string[];
}

/** Headers that belong to one connection (RFC 9110 §7.6.1), not passed on. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);

/** HTTPS on 127.0.0.1 (any port) → http://127.0.0.1:`target`, telling the server the scheme and host the client used. */
async function startTlsProxy(
  tls: { cert: string; key: string },
  target: number,
): Promise<{ port: number; passed: Passed[]; close(): Promise<void> }> {
  const passed: Passed[] = [];
  const server = https.createServer({ cert: fs.readFileSync(tls.cert), key: fs.readFileSync(tls.key) }, (req, res) => {
    const headers = { ...req.headers, 'x-forwarded-proto': 'https', 'x-forwarded-host': req.headers.host ?? '' };
    const upstream = http.request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        const out: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
        out['content-length'] = body.length;
        const json = /json/.test(String(answer.headers['content-type'] ?? '')) ? body.toString('utf8') : '';
        const text = [answer.headers.location ?? '', ...[answer.headers.link ?? []].flat(), json].join('\n');
        passed.push({
          request: `${req.method} ${req.url}`,
          status: answer.statusCode ?? 0,
          urls: text.match(/[a-z][a-z0-9+.-]*:\/\/[^\s"<>,;]+/gi) ?? [],
        });
        res.writeHead(answer.statusCode ?? 502, out);
        res.end(body);
      });
    });
    upstream.on('error', (e) => res.writeHead(502).end(`proxy: ${e.message}`));
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, passed, close: () => closeServer(server) };
}

describeWith(['certbot', 'lego', 'openssl'], 'ACME clients through a TLS-terminating proxy (TRUST_PROXY=loopback)', () => {
  let lab: ClientLab;
  let dir: string;
  let dns: TestDnsServer;
  let http01Port: number;
  let tlsCa: string;
  let example: AcmeExample;
  let proxy: Awaited<ReturnType<typeof startTlsProxy>>;
  /** The directory as the clients see it: at the proxy. */
  let directory: string;

  beforeAll(async () => {
    lab = await startClientLab('proxy', { tls: true, env: () => ({ TRUST_PROXY: 'loopback' }) });
    ({ dir, dns, http01Port, example } = lab);
    tlsCa = lab.tls!.ca;
    proxy = await startTlsProxy(lab.tls!, example.port);
    directory = `https://localhost:${proxy.port}${new URL(example.directory).pathname}`;
  });
  afterAll(async () => {
    await proxy?.close();
    await lab?.close();
  });
  beforeEach(() => {
    proxy.passed.length = 0;
  });

  /**
   * Every URL in what the proxy passed on is https://, and each of the server's own is at the proxy
   * (the directory's random member points at community.letsencrypt.org); the ACME resources a full
   * issuance touches were all among them.
   */
  function expectHttpsUrlsOnly(): void {
    expect(example.directory.startsWith('http://')).toBe(true); // the server itself speaks HTTP
    const acmeRoot = `https://localhost:${proxy.port}/django_ca/acme/`;
    const urls = proxy.passed.flatMap((p) => p.urls);
    expect(urls.filter((u) => !u.startsWith('https://'))).toEqual([]);
    expect(urls.filter((u) => !u.startsWith(acmeRoot) && !u.startsWith('https://community.letsencrypt.org/'))).toEqual([]);
    const kinds = new Set(urls.map((u) => /\/django_ca\/acme\/(?:directory\/)?[0-9A-F]+\/([a-z-]+)/.exec(u)?.[1] ?? u));
    for (const kind of ['new-nonce', 'new-account', 'new-order', 'acct', 'order', 'authz', 'chall', 'cert']) expect(kinds).toContain(kind);
    expect(proxy.passed.filter((p) => p.status >= 500)).toEqual([]);
  }

  test('certbot (REQUESTS_CA_BUNDLE) through the proxy: completes, and every URL it was given is https://', async () => {
    const home = path.join(dir, 'certbot');
    dns.setA('certbot-proxy.example.test', ['127.0.0.1']);
    const result = await certbot(directory, home, certbotStandaloneArgs(http01Port, ['certbot-proxy.example.test']), {
      REQUESTS_CA_BUNDLE: tlsCa,
    });
    expectSuccess('certbot certonly through the proxy', result);
    const live = path.join(home, 'config', 'live', 'certbot-proxy.example.test');
    const [cert, chain] = [path.join(live, 'cert.pem'), path.join(live, 'chain.pem')];
    expect(await opensslVerify(example.rootPem, chain, cert)).toBe(`${cert}: OK\n`);
    expect((await opensslOcsp(cert, chain, example.rootPem, home)).status).toBe('good');
    expect(proxy.passed.map((p) => p.request)).toContainEqual(
      expect.stringMatching(/^POST \/django_ca\/acme\/[0-9A-F]+\/order\/[^/]+\/finalize\/$/),
    );
    expectHttpsUrlsOnly();
  });

  test('lego (LEGO_CA_CERTIFICATES) through the proxy: completes, and every URL it was given is https://', async () => {
    const home = path.join(dir, 'lego');
    dns.setA('lego-proxy.example.test', ['127.0.0.1']);
    const args = ['--domains', 'lego-proxy.example.test', '--http', '--http.port', `127.0.0.1:${http01Port}`, 'run'];
    expectSuccess('lego run through the proxy', await lego(directory, home, args, { LEGO_CA_CERTIFICATES: tlsCa }));
    const cert = path.join(home, 'certificates', 'lego-proxy.example.test.crt');
    expect(await opensslVerify(example.rootPem, path.join(home, 'certificates', 'lego-proxy.example.test.issuer.crt'), cert)).toBe(
      `${cert}: OK\n`,
    );
    expectHttpsUrlsOnly();
  });
});
