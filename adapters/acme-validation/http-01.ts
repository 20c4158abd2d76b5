/**
 * http-01 (RFC 8555 §8.3; RFC 8738 §5 for IP identifiers): GET
 * `http://{identifier}/.well-known/acme-challenge/{token}`, following redirects, must answer 200 with
 * the key authorization as its body.
 */
import type { ChallengeToValidate, ValidationOutcome } from '../../lib/ports/acme';
import type { Deadline } from './deadline';
import { fetchOnce, REDIRECT_STATUSES } from './http-fetch';
import { connectPort, redirectTarget } from './http-redirect';
import { failure, hostPort, isFailure, quoted, VALID } from './outcome';
import type { NameLookup } from './resolver';
import type { ValidatorSettings } from './settings';
import { addressesOf, firstConnected, urlHost } from './targets';

export async function validateHttp01(
  challenge: ChallengeToValidate,
  settings: ValidatorSettings,
  lookup: NameLookup,
  deadline: Deadline,
): Promise<ValidationOutcome> {
  // RFC 8738 §5: for an IP identifier the Host header is the address itself, IPv6 in brackets.
  let url = new URL(`http://${urlHost(challenge.identifier.value)}/.well-known/acme-challenge/${challenge.token}`);
  for (let redirects = 0; ; redirects++) {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const addresses = await addressesOf(host, lookup);
    if (isFailure(addresses)) return addresses;
    const port = connectPort(url, settings);
    const answer = await firstConnected(
      addresses,
      port,
      deadline,
      (address, connectMs) =>
        fetchOnce({ url, address, port }, { connectMs, totalMs: deadline.remaining(), maxBodyBytes: settings.maxBodyBytes }).then(
          (result) => ('notConnected' in result ? result : { ...result, address }),
        ),
      `fetching ${url.href}`,
    );
    if (isFailure(answer)) return answer;
    const where = hostPort(answer.address, port);
    if ('failed' in answer) {
      // Connected, then lost: a transient state of the network or the server as far as we can tell.
      return failure(answer.tls ? 'tls' : 'connection', `${where}: ${answer.failed} while fetching ${url.href}`, true);
    }
    const { status, location, body, tooLarge } = answer.response;
    if (REDIRECT_STATUSES.has(status)) {
      if (redirects >= settings.maxRedirects) {
        return failure(
          'incorrectResponse',
          `${where}: too many redirects (more than ${settings.maxRedirects}), the last from ${url.href}`,
          false,
        );
      }
      const next = redirectTarget(url, location, settings);
      if (typeof next === 'string') return failure('incorrectResponse', `${where}: ${next}`, false);
      url = next;
      continue;
    }
    return checkResponse(`${where}: ${url.href}`, status, body, tooLarge, challenge.keyAuthorization, settings.maxBodyBytes);
  }
}

function checkResponse(
  where: string,
  status: number,
  body: Buffer,
  tooLarge: boolean,
  keyAuthorization: string,
  maxBodyBytes: number,
): ValidationOutcome {
  if (status !== 200) {
    // A 5xx is the server's own trouble (a proxy whose backend restarts, RFC 9110 §15.6), which may pass
    // by the next attempt. A 404 or any other answer is final: the client says it is ready only once the
    // response is in place (RFC 8555 §7.5.1), and waiting out the retries would only hide its mistake.
    const retryable = status >= 500 && status <= 599;
    return failure('incorrectResponse', `${where} answered HTTP ${status} (expected 200 with the key authorization)`, retryable);
  }
  if (tooLarge) return failure('incorrectResponse', `${where}: the response body is larger than ${maxBodyBytes} bytes`, false);
  // RFC 8555 §8.3: "The server SHOULD ignore whitespace characters at the end of the body."
  const text = body.toString('utf8').replace(/[\t\n\v\f\r ]+$/, '');
  if (text === keyAuthorization) return VALID;
  return failure(
    'incorrectResponse',
    `${where}: the body is not the key authorization: expected ${quoted(keyAuthorization)}, got ${quoted(text)}`,
    false,
  );
}
