/**
 * Authorizations and challenges (RFC 8555 §7.5): read an authorization, deactivate it (§7.5.2, which
 * the original refuses), and start a challenge's validation (§7.5.1), which the runner carries out
 * (lib/acme/runner.ts). Only the account that owns the order may see or act on them.
 */
import type { AcmeAuthorizationRecord } from '../../ports';
import { isJsonObject, ownMember } from '../encoding';
import { authorizationJson, challengeJson } from '../objects';
import { malformed, unauthorized } from '../problems';
import type { AcmeAnswer, AcmeCall } from '../route-types';

/**
 * What a client polling a challenge being validated is told to wait (RFC 8555 §8.2: the server
 * provides its retry state "via the Retry-After HTTP header field in response to requests to the
 * challenge resource"). Without it lego waits 5 s before its first look at the authorization.
 */
const VALIDATING_RETRY_AFTER_S = '1';

function owned(call: AcmeCall, authz: AcmeAuthorizationRecord | null): AcmeAuthorizationRecord {
  if (!authz || !call.account || authz.accountId !== call.account.id) throw unauthorized('You are not authorized to perform this request.');
  return authz;
}

/** The authorization: POST-as-GET reads it, `{"status": "deactivated"}` deactivates it. */
export async function authorization(call: AcmeCall): Promise<AcmeAnswer> {
  const { services, ca, urls, params, jws } = call;
  let authz = owned(call, await services.acme.findAuthorization(ca.id, params.slug));
  if (jws && !jws.postAsGet) {
    const payload = jws.payload;
    if (!isJsonObject(payload) || ownMember(payload, 'status') !== 'deactivated') {
      throw malformed('An authorization can only be deactivated ("status": "deactivated").');
    }
    if (authz.status === 'pending' || authz.status === 'valid') authz = await services.acme.deactivateAuthorization(authz.id);
  }
  return { status: 200, body: authorizationJson(authz, urls) };
}

/**
 * A challenge: a POST with `{}` asks the server to validate it (§7.5.1) — once; repeating it changes
 * nothing — and POST-as-GET reads it. Answered with the challenge and `Link: rel="up"` to its
 * authorization.
 */
export async function challenge(call: AcmeCall): Promise<AcmeAnswer> {
  const { services, ca, urls, params, jws, now } = call;
  let authz = owned(call, await services.acme.findAuthorizationByChallenge(ca.id, params.slug));
  const find = (a: AcmeAuthorizationRecord) => a.challenges.find((c) => c.slug === params.slug);
  const current = find(authz);
  if (!current) throw unauthorized('You are not authorized to perform this request.');
  if (jws && !jws.postAsGet && current.status === 'pending') {
    await services.acme.startValidation(current.id, now);
    services.runner.wake();
    authz = owned(call, await services.acme.findAuthorizationByChallenge(ca.id, params.slug));
  }
  const shown = find(authz) ?? current;
  return {
    status: 200,
    body: challengeJson(shown, urls),
    links: [`<${urls.authorization(authz.slug)}>;rel="up"`],
    ...(shown.status === 'processing' ? { headers: { 'Retry-After': VALIDATING_RETRY_AFTER_S } } : {}),
  };
}
