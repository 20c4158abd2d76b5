/**
 * The validator's settings, checked when the validator is made (the environment's are read by
 * lib/settings: test/settings/acme-validation.test.ts).
 */
import { challengeValidator, DEFAULT_VALIDATOR_SETTINGS } from '../../adapters/acme-validation';

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

  test('the defaults', () => {
    expect(DEFAULT_VALIDATOR_SETTINGS).toMatchObject({
      dnsServers: [],
      http01Port: 80,
      tlsAlpn01Port: 443,
      timeoutMs: 10000,
      maxRedirects: 10,
      maxBodyBytes: 8192,
    });
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
