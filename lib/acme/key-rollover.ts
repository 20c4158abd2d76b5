/**
 * Account key rollover (RFC 8555 §7.3.5), which the original only advertises: the outer JWS signed by
 * the account (`kid`), its payload an inner JWS signed by the new key (`jwk`), both for the same URL,
 * the inner payload naming the account and its old key. A new key another account already holds is
 * a 409 with that account's URL in `Location`.
 */
import type { AcmeAccountRecord, CaRecord } from '../ports';
import { isJsonObject, ownMember } from './encoding';
import { jwkThumbprint, publicKeyFromJwk } from './jwk';
import { parseFlattenedJws, verifyJws, type ParsedJws } from './jws';
import { AcmeProblem, malformed, unauthorized } from './problems';
import type { AcmeServices } from './services';

/** The account with its new key; `accountUrl` names an account holding the new key already (the 409's `Location`). */
export async function rollOverKey(
  services: AcmeServices,
  ca: CaRecord,
  account: AcmeAccountRecord,
  jws: ParsedJws,
  accountUrl: (slug: string) => string,
): Promise<AcmeAccountRecord> {
  const inner = parseFlattenedJws(jws.payload);
  const header = inner.header;
  if (ownMember(header, 'nonce') !== undefined) throw malformed('The inner JWS of a key change must not have a nonce.');
  if (ownMember(header, 'kid') !== undefined) throw malformed('The inner JWS of a key change must carry the new key as "jwk".');
  if (ownMember(header, 'url') !== jws.url) throw malformed('The inner JWS must name the same "url" as the outer one.');
  const { key, jwk } = publicKeyFromJwk(ownMember(header, 'jwk'));
  verifyJws(inner, key);
  let payload: unknown;
  try {
    payload = JSON.parse(inner.payloadBytes.toString('utf8'));
  } catch {
    throw malformed('The inner payload is not JSON.');
  }
  if (!isJsonObject(payload)) throw malformed('The inner payload must be an object with "account" and "oldKey".');
  if (jws.signer.kind !== 'kid' || ownMember(payload, 'account') !== jws.signer.kid) {
    throw unauthorized('The inner payload must name the account that signed the request.');
  }
  const oldKey = publicKeyFromJwk(ownMember(payload, 'oldKey')).jwk;
  if (jwkThumbprint(oldKey) !== account.thumbprint) throw unauthorized('"oldKey" is not the account\'s current key.');
  const thumbprint = jwkThumbprint(jwk);
  const taken = await services.acme.findAccountByThumbprint(ca.id, thumbprint);
  if (taken) {
    const conflict = new AcmeProblem('malformed', 409, 'The new key is already the key of an account.');
    throw Object.assign(conflict, { location: accountUrl(taken.slug) });
  }
  const updated = await services.acme.changeAccountKey(account.id, jwk as unknown as Record<string, string>, thumbprint);
  if (!updated) throw new AcmeProblem('malformed', 409, 'The new key is already the key of an account.');
  return updated;
}
