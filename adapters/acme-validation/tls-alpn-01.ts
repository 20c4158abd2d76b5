/**
 * tls-alpn-01 (RFC 8737; RFC 8738 §6 for IP identifiers): a TLS handshake with the identifier's
 * address on `tlsAlpn01Port`, offering only `acme-tls/1`, must negotiate that protocol and present a
 * challenge certificate for the identifier and the key authorization.
 */
import type { ChallengeToValidate, ValidationOutcome } from '../../lib/ports/acme';
import { checkChallengeCertificate } from './challenge-certificate';
import type { Deadline } from './deadline';
import { failure, hostPort, isFailure, VALID } from './outcome';
import type { NameLookup } from './resolver';
import type { ValidatorSettings } from './settings';
import { addressesOf, firstConnected, reverseDnsName } from './targets';
import { ACME_TLS_1, tlsHandshake } from './tls-handshake';

export async function validateTlsAlpn01(
  challenge: ChallengeToValidate,
  settings: ValidatorSettings,
  lookup: NameLookup,
  deadline: Deadline,
): Promise<ValidationOutcome> {
  const { identifier } = challenge;
  const addresses = await addressesOf(identifier.value, lookup);
  if (isFailure(addresses)) return addresses;
  const port = settings.tlsAlpn01Port;
  // RFC 8737 §3: SNI is the name being validated; RFC 8738 §6: an address's reverse-mapping name.
  const servername = identifier.type === 'ip' ? reverseDnsName(identifier.value) : identifier.value;
  const doing = `connecting for tls-alpn-01 to ${identifier.value}`;
  const answer = await firstConnected(
    addresses,
    port,
    deadline,
    (address, connectMs) =>
      tlsHandshake({ address, port, servername }, { connectMs, totalMs: deadline.remaining() }).then((result) =>
        'notConnected' in result ? result : { ...result, address },
      ),
    doing,
  );
  if (isFailure(answer)) return answer;
  const where = `${hostPort(answer.address, port)} (SNI ${servername})`;
  // A handshake that failed on its way may succeed next time; a server that refuses acme-tls/1 has answered.
  if ('failed' in answer) return failure('tls', `${where}: ${answer.failed}`, !answer.final);
  if (answer.alpnProtocol !== ACME_TLS_1) {
    const got = answer.alpnProtocol ? `negotiated ${answer.alpnProtocol}` : 'negotiated no application protocol';
    return failure('tls', `${where}: the server ${got}, not ${ACME_TLS_1} (RFC 8737 §3)`, false);
  }
  const wrong = checkChallengeCertificate(answer.certificate, identifier, challenge.keyAuthorization);
  if (wrong) return { ...wrong, problem: { ...wrong.problem, detail: `${where}: ${wrong.problem.detail}` } };
  return VALID;
}
