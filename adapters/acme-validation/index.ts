/**
 * The default `ChallengeValidator` (lib/ports/acme.ts): http-01 (RFC 8555 §8.3), dns-01 (RFC 8555
 * §8.4) and tls-alpn-01 (RFC 8737), for DNS names and IP addresses (RFC 8738). Every lookup goes
 * through the configured DNS servers, every connection to the configured ports, and every
 * validation is bounded in time, redirects, bytes and addresses tried. It never throws and logs
 * nothing: what went wrong is the outcome's detail.
 */
import * as net from 'net';
import type { ChallengeToValidate, ChallengeValidator, ValidationOutcome } from '../../lib/ports/acme';
import { Deadline } from './deadline';
import { validateDns01 } from './dns-01';
import { validateHttp01 } from './http-01';
import { failure } from './outcome';
import { nameLookup } from './resolver';
import { completeSettings, type ValidatorSettings } from './settings';
import { validateTlsAlpn01 } from './tls-alpn-01';

export { DEFAULT_VALIDATOR_SETTINGS, type ValidatorSettings } from './settings';

/** Throws an Error naming the setting when one is invalid (at start-up, not at the first challenge). */
export function challengeValidator(settings: Partial<ValidatorSettings> = {}): ChallengeValidator {
  const complete = completeSettings(settings);
  return {
    async validate(challenge: ChallengeToValidate): Promise<ValidationOutcome> {
      const malformed = malformedChallenge(challenge);
      if (malformed) return failure('malformed', malformed, false);
      const deadline = new Deadline(complete.timeoutMs);
      const lookup = nameLookup(complete, deadline);
      try {
        switch (challenge.type) {
          case 'http-01':
            return await validateHttp01(challenge, complete, lookup, deadline);
          case 'dns-01':
            return await validateDns01(challenge, lookup);
          case 'tls-alpn-01':
            return await validateTlsAlpn01(challenge, complete, lookup, deadline);
        }
      } catch (e) {
        // A fault of ours, not of the client's server. Retryable: the causes we can imagine (out of file
        // descriptors, say) pass, and the validation runner bounds the attempts.
        return failure('serverInternal', `the ${challenge.type} validation failed unexpectedly: ${(e as Error).message}`, true);
      } finally {
        lookup.close();
      }
    },
  };
}

/** What the port promises about a challenge, checked: a validator must not be led astray by a bad one. */
function malformedChallenge(c: ChallengeToValidate): string | null {
  if (!['http-01', 'dns-01', 'tls-alpn-01'].includes(c?.type)) return `unsupported challenge type ${JSON.stringify(c?.type)}`;
  const { type, value } = c.identifier ?? {};
  if (typeof value !== 'string' || value === '' || value.length > 253) return 'the identifier has no value, or one too long';
  if (type === 'ip' && !net.isIP(value)) return `${JSON.stringify(value)} is not an IP address`;
  if (type === 'dns' && (net.isIP(value) || !/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(value))) {
    return `${JSON.stringify(value.slice(0, 100))} is not a DNS name in lower case`;
  }
  if (type !== 'dns' && type !== 'ip') return `unsupported identifier type ${JSON.stringify(type)}`;
  // RFC 8555 §8.3: a token holds only base64url characters; anything else must not reach the URL path.
  if (typeof c.token !== 'string' || !/^[A-Za-z0-9_-]+$/.test(c.token)) return 'the token is not base64url';
  if (typeof c.keyAuthorization !== 'string') return 'the key authorization is missing';
  return null;
}
