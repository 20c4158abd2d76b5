/** The validator's settings: from the environment, and checked when the validator is made. */
import { challengeValidator, DEFAULT_VALIDATOR_SETTINGS, validatorSettingsFromEnv } from '../../adapters/acme-validation';

describe('validatorSettingsFromEnv', () => {
  test('nothing set: nothing overridden (the defaults apply)', () => {
    expect(validatorSettingsFromEnv({})).toEqual({});
    expect(validatorSettingsFromEnv({ CA_ACME_DNS_SERVERS: ' ', CA_ACME_HTTP01_PORT: '' })).toEqual({});
    expect(DEFAULT_VALIDATOR_SETTINGS).toMatchObject({
      dnsServers: [],
      http01Port: 80,
      tlsAlpn01Port: 443,
      timeoutMs: 10000,
      maxRedirects: 10,
      maxBodyBytes: 8192,
    });
  });

  test('DNS servers (IPv4 and IPv6, port 53 when none is given) and the two ports', () => {
    expect(
      validatorSettingsFromEnv({
        CA_ACME_DNS_SERVERS: '127.0.0.1:5353, [::1]:53,10.0.0.2,[fd00::1],::1',
        CA_ACME_HTTP01_PORT: '5002',
        CA_ACME_TLS_ALPN01_PORT: ' 5001 ',
      }),
    ).toEqual({
      dnsServers: ['127.0.0.1:5353', '[::1]:53', '10.0.0.2:53', '[fd00::1]:53', '[::1]:53'],
      http01Port: 5002,
      tlsAlpn01Port: 5001,
    });
  });

  test.each([
    ['CA_ACME_DNS_SERVERS', 'dns.example.com:53', /^CA_ACME_DNS_SERVERS: invalid entry "dns.example.com:53"/],
    ['CA_ACME_DNS_SERVERS', '127.0.0.1:53,,', /^CA_ACME_DNS_SERVERS: invalid entry ""/],
    ['CA_ACME_DNS_SERVERS', '127.0.0.1:70000', /^CA_ACME_DNS_SERVERS: invalid entry "127.0.0.1:70000"/],
    ['CA_ACME_HTTP01_PORT', '0', /^CA_ACME_HTTP01_PORT: expected a port number \(1-65535\), got "0"$/],
    ['CA_ACME_HTTP01_PORT', '80a', /^CA_ACME_HTTP01_PORT: expected a port number/],
    ['CA_ACME_TLS_ALPN01_PORT', '65536', /^CA_ACME_TLS_ALPN01_PORT: expected a port number/],
    ['CA_ACME_TLS_ALPN01_PORT', '-1', /^CA_ACME_TLS_ALPN01_PORT: expected a port number/],
  ])('%s=%j is refused, naming the variable', (variable, value, message) => {
    let error: Error | undefined;
    try {
      validatorSettingsFromEnv({ [variable]: value });
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toMatch(message);
  });

  test('an IPv6 address with a port needs its brackets: `::1:53` is the address ::1:53', () => {
    expect(validatorSettingsFromEnv({ CA_ACME_DNS_SERVERS: '::1:53' })).toEqual({ dnsServers: ['[::1:53]:53'] });
  });
});

describe('challengeValidator', () => {
  test.each([
    [{ http01Port: 0 }, 'http01Port must be a port number'],
    [{ tlsAlpn01Port: 1.5 }, 'tlsAlpn01Port must be a port number'],
    [{ timeoutMs: 0 }, 'timeoutMs must be a positive integer'],
    [{ maxBodyBytes: -1 }, 'maxBodyBytes must be a positive integer'],
    [{ maxRedirects: -1 }, 'maxRedirects must be an integer of at least 0'],
    [{ dnsServers: ['resolver.example'] }, 'dnsServers has an invalid entry "resolver.example"'],
  ])('refuses %j when it is made', (settings, message) => {
    expect(() => challengeValidator(settings)).toThrow(message);
  });

  test('settings left undefined take their defaults', () => {
    expect(() => challengeValidator({ http01Port: undefined, dnsServers: undefined })).not.toThrow();
  });

  test('a challenge of an unknown type is an outcome, not an exception', async () => {
    const validator = challengeValidator();
    const outcome = await validator.validate({
      type: 'email-reply-00' as never,
      identifier: { type: 'dns', value: 'a.test' },
      token: 't',
      keyAuthorization: 't.k',
    });
    expect(outcome).toEqual({
      valid: false,
      retryable: false,
      problem: { type: 'malformed', detail: 'unsupported challenge type "email-reply-00"' },
    });
  });
});
