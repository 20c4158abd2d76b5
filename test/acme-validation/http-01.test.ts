/**
 * http-01 (RFC 8555 §8.3, RFC 8738 §5) against real HTTP servers on loopback ports, names resolved by
 * the test DNS server: what is valid, what is refused, and which failures are worth another attempt.
 */
import * as http from 'http';
import * as https from 'https';
import * as net from 'net';
import { challengeValidator, type ValidatorSettings } from '../../adapters/acme-validation';
import type { ChallengeToValidate, ValidationOutcome } from '../../lib/ports/acme';
import { challengeCertificate } from '../helpers/challenge-certificate';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { closeServer, hasIpv6Loopback, listen, unusedPort } from '../helpers/sockets';

const TOKEN = 'evaGxfADs6pSRb2LAv9IZf17Dt3juxGJ-PCt92wr-oA';
const KEY_AUTHORIZATION = `${TOKEN}.9jg46WB3rR_AHD-EBXdN7cBkH1WOu0tA3M9fm21mqTI`;
const PATH = `/.well-known/acme-challenge/${TOKEN}`;

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

let dns: TestDnsServer;
let server: http.Server;
let port: number;
/** The handler by path for the next request; a 404 for any other path. */
let routes: Record<string, Handler> = {};
let hosts: string[] = [];

beforeAll(async () => {
  dns = await startDnsServer();
  dns.setA('a.test', ['127.0.0.1']);
  dns.setA('b.test', ['127.0.0.1']);
  server = http.createServer((req, res) => {
    hosts.push(req.headers.host ?? '');
    const handler = routes[req.url ?? ''];
    if (handler) return handler(req, res);
    res.writeHead(404).end('not found');
  });
  port = await listen(server);
});
afterAll(async () => {
  await closeServer(server);
  await dns.close();
});
beforeEach(() => {
  routes = {};
  hosts = [];
});

function validator(settings: Partial<ValidatorSettings> = {}) {
  return challengeValidator({ dnsServers: [dns.address], http01Port: port, timeoutMs: 5000, ...settings });
}

function challenge(value = 'a.test', type: 'dns' | 'ip' = 'dns'): ChallengeToValidate {
  return { type: 'http-01', identifier: { type, value }, token: TOKEN, keyAuthorization: KEY_AUTHORIZATION };
}

const body =
  (text: string, status = 200): Handler =>
  (_req, res) =>
    res.writeHead(status, { 'Content-Type': 'text/plain' }).end(text);

const redirect =
  (location: string, status = 302): Handler =>
  (_req, res) =>
    res.writeHead(status, { Location: location }).end();

function failed(outcome: ValidationOutcome) {
  if (outcome.valid) throw new Error('expected a failed validation');
  return outcome;
}

describe('valid', () => {
  test('the key authorization as the body, with the name as the Host header', async () => {
    routes[PATH] = body(KEY_AUTHORIZATION);
    expect(await validator().validate(challenge())).toEqual({ valid: true });
    expect(hosts).toEqual(['a.test']);
    expect(dns.queries.some((q) => q.name === 'a.test')).toBe(true);
  });

  test('whitespace at the end of the body is ignored (RFC 8555 §8.3)', async () => {
    routes[PATH] = body(`${KEY_AUTHORIZATION}\r\n \n`);
    expect(await validator().validate(challenge())).toEqual({ valid: true });
  });

  test('an IPv4 identifier: no DNS, the address as the Host header (RFC 8738 §5)', async () => {
    routes[PATH] = body(KEY_AUTHORIZATION);
    expect(await validator().validate(challenge('127.0.0.1', 'ip'))).toEqual({ valid: true });
    expect(hosts).toEqual(['127.0.0.1']);
  });

  const ipv6 = hasIpv6Loopback();
  if (!ipv6) console.warn('http-01 IPv6 test skipped: this machine has no IPv6 loopback address (::1)');
  (ipv6 ? test : test.skip)('an IPv6 identifier: the address in brackets as the Host header', async () => {
    const v6 = http.createServer((req, res) => {
      hosts.push(req.headers.host ?? '');
      res.end(KEY_AUTHORIZATION);
    });
    const v6Port = await listen(v6, '::1');
    try {
      expect(await validator({ http01Port: v6Port }).validate(challenge('::1', 'ip'))).toEqual({ valid: true });
      expect(hosts).toEqual(['[::1]']);
    } finally {
      await closeServer(v6);
    }
  });

  test('a chain of redirects within the limit, to relative and absolute URLs and another name', async () => {
    routes[PATH] = redirect('/step-1', 301);
    routes['/step-1'] = redirect(`http://b.test:${port}/step-2`, 307);
    routes['/step-2'] = redirect('/step-3?q=1', 308);
    routes['/step-3?q=1'] = body(KEY_AUTHORIZATION);
    expect(await validator({ maxRedirects: 3 }).validate(challenge())).toEqual({ valid: true });
    expect(hosts).toEqual(['a.test', 'a.test', `b.test:${port}`, `b.test:${port}`]);
  });

  test('a redirect to https: the certificate is not verified', async () => {
    const { key, cert } = await challengeCertificate({ keyAuthorization: 'unused', names: [{ type: 'DNS', value: 'elsewhere.test' }] });
    const secure = https.createServer({ key, cert }, (_req, res) => res.end(KEY_AUTHORIZATION));
    const securePort = await listen(secure);
    try {
      routes[PATH] = redirect(`https://b.test:${securePort}/central`);
      expect(await validator({ tlsAlpn01Port: securePort }).validate(challenge())).toEqual({ valid: true });
    } finally {
      await closeServer(secure);
    }
  });
});

describe('refused', () => {
  test('a wrong body: incorrectResponse, final, showing what was found', async () => {
    routes[PATH] = body('something else');
    const outcome = failed(await validator().validate(challenge()));
    expect(outcome.problem.type).toBe('incorrectResponse');
    expect(outcome.retryable).toBe(false);
    expect(outcome.problem.detail).toContain(`127.0.0.1:${port}: http://a.test${PATH}`);
    expect(outcome.problem.detail).toContain('got "something else"');
  });

  test('404: incorrectResponse, final', async () => {
    const outcome = failed(await validator().validate(challenge()));
    expect(outcome.problem.type).toBe('incorrectResponse');
    expect(outcome.problem.detail).toContain('HTTP 404');
    expect(outcome.retryable).toBe(false);
  });

  test('503: incorrectResponse, worth another attempt', async () => {
    routes[PATH] = body('busy', 503);
    const outcome = failed(await validator().validate(challenge()));
    expect(outcome.problem.type).toBe('incorrectResponse');
    expect(outcome.retryable).toBe(true);
  });

  test('a body over maxBodyBytes, declared or streamed, is not read to its end', async () => {
    routes[PATH] = body(KEY_AUTHORIZATION + ' '.repeat(200));
    let outcome = failed(await validator({ maxBodyBytes: 100 }).validate(challenge()));
    expect(outcome.problem).toMatchObject({ type: 'incorrectResponse', detail: expect.stringContaining('larger than 100 bytes') });
    routes[PATH] = (_req, res) => {
      res.writeHead(200); // chunked, no Content-Length
      res.write(KEY_AUTHORIZATION);
      res.end('x'.repeat(10_000));
    };
    outcome = failed(await validator().validate(challenge()));
    expect(outcome.problem).toMatchObject({ type: 'incorrectResponse', detail: expect.stringContaining('larger than 8192 bytes') });
    expect(outcome.retryable).toBe(false);
  });

  test('more redirects than maxRedirects', async () => {
    routes[PATH] = redirect('/step-1');
    routes['/step-1'] = redirect('/step-2');
    routes['/step-2'] = body(KEY_AUTHORIZATION);
    const outcome = failed(await validator({ maxRedirects: 1 }).validate(challenge()));
    expect(outcome.problem).toMatchObject({
      type: 'incorrectResponse',
      detail: expect.stringContaining('too many redirects (more than 1)'),
    });
    expect(outcome.retryable).toBe(false);
    expect(hosts).toHaveLength(2);
  });

  test('a redirect to a port that is neither 80, 443 nor a configured one, or to another scheme', async () => {
    routes[PATH] = redirect('http://b.test:6379/');
    let outcome = failed(await validator().validate(challenge()));
    expect(outcome.problem.detail).toContain('only ports 80, 443');
    routes[PATH] = redirect('ftp://b.test/file');
    outcome = failed(await validator().validate(challenge()));
    expect(outcome.problem.detail).toContain('only http and https are followed');
    expect(hosts).toHaveLength(2);
  });

  test('connection refused: connection, worth another attempt, saying where', async () => {
    const closed = await unusedPort();
    const outcome = failed(await validator({ http01Port: closed }).validate(challenge()));
    expect(outcome).toEqual({
      valid: false,
      retryable: true,
      problem: { type: 'connection', detail: `127.0.0.1:${closed}: connection refused while fetching http://a.test${PATH}` },
    });
  });

  test('a server that accepts and never answers: a timeout within timeoutMs', async () => {
    const silent = net.createServer((socket) => socket.resume()); // reads, never writes
    const silentPort = await listen(silent);
    try {
      // An IP identifier: no DNS lookup to take the short time on a busy machine.
      const outcome = failed(await validator({ http01Port: silentPort, timeoutMs: 500 }).validate(challenge('127.0.0.1', 'ip')));
      expect(outcome.problem).toEqual({
        type: 'connection',
        detail: `127.0.0.1:${silentPort}: timeout while fetching http://127.0.0.1${PATH}`,
      });
      expect(outcome.retryable).toBe(true);
    } finally {
      await closeServer(silent);
    }
  });

  test('a name that does not exist: dns, worth another attempt', async () => {
    const outcome = failed(await validator().validate(challenge('missing.test')));
    expect(outcome.problem.type).toBe('dns');
    expect(outcome.problem.detail).toContain('NXDOMAIN looking up A/AAAA for missing.test');
    expect(outcome.retryable).toBe(true);
  });

  test('a name tried on its IPv6 address first falls back to its IPv4 address', async () => {
    dns.setAAAA('both.test', ['::1']);
    dns.setA('both.test', ['127.0.0.1']);
    routes[PATH] = body(KEY_AUTHORIZATION);
    // Nothing of ours listens on [::1]:port (or there is no IPv6 at all): refused or unreachable, then IPv4.
    expect(await validator().validate(challenge('both.test'))).toEqual({ valid: true });
  });

  test('a malformed challenge is an outcome, not an exception', async () => {
    const outcome = failed(await validator().validate({ ...challenge(), token: '../../etc/passwd' }));
    expect(outcome).toMatchObject({ problem: { type: 'malformed' }, retryable: false });
  });
});
