/**
 * tls-alpn-01 (RFC 8737, RFC 8738 §6) against real TLS servers on loopback ports presenting challenge
 * certificates made with the engine's builder, names resolved by the test DNS server.
 */
import { createHash } from 'crypto';
import * as net from 'net';
import * as tls from 'tls';
import { challengeValidator, type ValidatorSettings } from '../../adapters/acme-validation';
import { reverseDnsName } from '../../adapters/acme-validation/targets';
import type { ChallengeToValidate, ValidationOutcome } from '../../lib/ports/acme';
import type { GeneralName } from '../../lib/x509/types';
import { challengeCertificate, type ChallengeCertificateOptions } from '../helpers/challenge-certificate';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { closeServer, hasIpv6Loopback, listen, unusedPort } from '../helpers/sockets';

const KEY_AUTHORIZATION = 'LoqXcYV8q5ONbJQxbmR7SCTNo3tiAXDfowyjxAjEuX0.9jg46WB3rR_AHD-EBXdN7cBkH1WOu0tA3M9fm21mqTI';

let dns: TestDnsServer;
let server: tls.Server;
let port: number;
/** What the server presents next, and what it saw. */
let context: tls.SecureContext;
let seen: { servername: string; offered: string[] }[] = [];

async function present(options: Partial<ChallengeCertificateOptions> & { names: GeneralName[] }): Promise<void> {
  context = tls.createSecureContext(await challengeCertificate({ keyAuthorization: KEY_AUTHORIZATION, ...options }));
}

beforeAll(async () => {
  dns = await startDnsServer();
  dns.setA('a.test', ['127.0.0.1']);
  server = challengeServer();
  port = await listen(server);
});
afterAll(async () => {
  await closeServer(server);
  await dns.close();
});
beforeEach(() => (seen = []));

/** A tls-alpn-01 responder that notes the SNI and the protocols each client offers. */
function challengeServer(): tls.Server {
  return tls.createServer({
    // Node asks for the protocol first, with the SNI; then for the context.
    ALPNCallback: ({ servername, protocols }) => {
      seen.push({ servername, offered: protocols });
      return protocols.includes('acme-tls/1') ? 'acme-tls/1' : undefined;
    },
    SNICallback: (_servername, callback) => callback(null, context),
  });
}

function validator(settings: Partial<ValidatorSettings> = {}) {
  return challengeValidator({ dnsServers: [dns.address], tlsAlpn01Port: port, timeoutMs: 5000, ...settings });
}

function challenge(value = 'a.test', type: 'dns' | 'ip' = 'dns'): ChallengeToValidate {
  return {
    type: 'tls-alpn-01',
    identifier: { type, value },
    token: 'LoqXcYV8q5ONbJQxbmR7SCTNo3tiAXDfowyjxAjEuX0',
    keyAuthorization: KEY_AUTHORIZATION,
  };
}

function failed(outcome: ValidationOutcome) {
  if (outcome.valid) throw new Error('expected a failed validation');
  return outcome;
}

describe('valid', () => {
  test('acme-tls/1 negotiated, SNI the name, a certificate for the name with the critical digest', async () => {
    await present({ names: [{ type: 'DNS', value: 'a.test' }] });
    expect(await validator().validate(challenge())).toEqual({ valid: true });
    expect(seen).toEqual([{ servername: 'a.test', offered: ['acme-tls/1'] }]);
  });

  test('an IPv4 identifier: SNI its reverse-mapping name, an iPAddress in the certificate (RFC 8738 §6)', async () => {
    await present({ names: [{ type: 'IP', value: '127.0.0.1' }] });
    expect(await validator().validate(challenge('127.0.0.1', 'ip'))).toEqual({ valid: true });
    expect(seen).toEqual([{ servername: '1.0.0.127.in-addr.arpa', offered: ['acme-tls/1'] }]);
  });

  const ipv6 = hasIpv6Loopback();
  if (!ipv6) console.warn('tls-alpn-01 IPv6 test skipped: this machine has no IPv6 loopback address (::1)');
  (ipv6 ? test : test.skip)('an IPv6 identifier: SNI under ip6.arpa', async () => {
    const v6 = challengeServer();
    const v6Port = await listen(v6, '::1');
    try {
      await present({ names: [{ type: 'IP', value: '::1' }] });
      expect(await validator({ tlsAlpn01Port: v6Port }).validate(challenge('::1', 'ip'))).toEqual({ valid: true });
      expect(seen[0].servername).toBe(`1.${'0.'.repeat(31)}ip6.arpa`);
    } finally {
      await closeServer(v6);
    }
  });

  test('reverse-mapping names (RFC 3596 §2.5 example)', () => {
    expect(reverseDnsName('4321:0:1:2:3:4:567:89ab')).toBe('b.a.9.8.7.6.5.0.4.0.0.0.3.0.0.0.2.0.0.0.1.0.0.0.0.0.0.0.1.2.3.4.ip6.arpa');
    expect(reverseDnsName('192.0.2.10')).toBe('10.2.0.192.in-addr.arpa');
  });
});

describe('refused certificates: incorrectResponse, final', () => {
  test.each<[string, Partial<ChallengeCertificateOptions> & { names: GeneralName[] }, string]>([
    ['an acmeIdentifier that is not critical', { names: [{ type: 'DNS', value: 'a.test' }], critical: false }, 'not critical'],
    [
      'the digest of another key authorization',
      { names: [{ type: 'DNS', value: 'a.test' }], digest: createHash('sha256').update('other.key').digest() },
      'expected SHA-256 of the key authorization',
    ],
    [
      'no acmeIdentifier',
      { names: [{ type: 'DNS', value: 'a.test' }], omitAcmeIdentifier: true },
      'has no acmeIdentifier extension (1.3.6.1.5.5.7.1.31)',
    ],
    [
      'a second name beside the identifier',
      {
        names: [
          { type: 'DNS', value: 'a.test' },
          { type: 'DNS', value: 'b.test' },
        ],
      },
      'must name exactly "DNS:a.test" in its subjectAltName, it names "DNS:a.test, DNS:b.test"',
    ],
    ['another name', { names: [{ type: 'DNS', value: 'b.test' }] }, 'it names "DNS:b.test"'],
  ])('%s', async (_what, options, detail) => {
    await present(options);
    const outcome = failed(await validator().validate(challenge()));
    expect(outcome.problem.type).toBe('incorrectResponse');
    expect(outcome.problem.detail).toContain(`127.0.0.1:${port} (SNI a.test): the presented certificate`);
    expect(outcome.problem.detail).toContain(detail);
    expect(outcome.retryable).toBe(false);
  });

  test('an IP identifier with a dNSName of its address instead of an iPAddress', async () => {
    await present({ names: [{ type: 'DNS', value: '127.0.0.1' }] });
    const outcome = failed(await validator().validate(challenge('127.0.0.1', 'ip')));
    expect(outcome.problem).toMatchObject({
      type: 'incorrectResponse',
      detail: expect.stringContaining('must name exactly "IP:127.0.0.1"'),
    });
  });
});

describe('refused connections', () => {
  test.each([
    ['offering other protocols only', ['h2', 'http/1.1']],
    ['offering no protocol at all', undefined],
  ])('a server %s: tls, final', async (_what, protocols) => {
    const plain = tls.createServer({
      ...(await challengeCertificate({ keyAuthorization: KEY_AUTHORIZATION, names: [{ type: 'DNS', value: 'a.test' }] })),
      ALPNProtocols: protocols,
    });
    plain.on('tlsClientError', () => undefined);
    const plainPort = await listen(plain);
    try {
      const outcome = failed(await validator({ tlsAlpn01Port: plainPort }).validate(challenge()));
      expect(outcome.problem.type).toBe('tls');
      expect(outcome.problem.detail).toContain('acme-tls/1');
      expect(outcome.retryable).toBe(false);
    } finally {
      await closeServer(plain);
    }
  });

  test('a server that does not speak TLS: tls, worth another attempt', async () => {
    const notTls = net.createServer((socket) => socket.resume().end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    const notTlsPort = await listen(notTls);
    try {
      const outcome = failed(await validator({ tlsAlpn01Port: notTlsPort }).validate(challenge()));
      expect(outcome.problem.type).toBe('tls');
      expect(outcome.problem.detail).toContain('TLS handshake failed');
      expect(outcome.retryable).toBe(true);
    } finally {
      await closeServer(notTls);
    }
  });

  test('connection refused: connection, worth another attempt', async () => {
    const closed = await unusedPort();
    const outcome = failed(await validator({ tlsAlpn01Port: closed }).validate(challenge()));
    expect(outcome).toEqual({
      valid: false,
      retryable: true,
      problem: { type: 'connection', detail: `127.0.0.1:${closed}: connection refused while connecting for tls-alpn-01 to a.test` },
    });
  });
});
