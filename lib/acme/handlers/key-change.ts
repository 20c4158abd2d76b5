/**
 * Account key rollover (RFC 8555 §7.3.5): the outer JWS signed by the account, its payload an inner
 * JWS signed by the new key; checked and carried out by the service (lib/acme/key-rollover.ts).
 */
import { rollOverKey } from '../key-rollover';
import { accountJson } from '../objects';
import { malformed } from '../problems';
import type { AcmeAnswer, AcmeCall } from '../route-types';

export async function keyChange(call: AcmeCall): Promise<AcmeAnswer> {
  const { jws, account, services, urls, ca } = call;
  if (!jws || !account) throw malformed('Request requires a JWK key ID.');
  const updated = await rollOverKey(services, ca, account, jws, (slug) => urls.account(slug));
  return { status: 200, body: accountJson(updated, urls), headers: { Location: urls.account(updated.slug) } };
}
