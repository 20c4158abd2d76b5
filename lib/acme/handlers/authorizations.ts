/**
 * Authorizations and challenges (RFC 8555 §7.5): read an authorization, deactivate it (§7.5.2, which
 * the original refuses), and start a challenge's validation (§7.5.1), which the runner carries out
 * (lib/acme/runner.ts). Only the account that owns the order may see or act on them.
 */
import type { AcmeAuthorizationRecord, AcmeChallengeRecord } from '../../ports';
import { isJsonObject, ownMember } from '../encoding';
import { authorizationJson, challengeJson } from '../objects';
import { malformed, unauthorized } from '../problems';
import type { AcmeAnswer, AcmeCall } from '../route-types';

/**
 * How long a challenge POST waits for the validation it started: most finish in milliseconds, and a
 * client whose answer already has the result saves its poll interval (acme-client waits 5 s, certbot
 * 3 s). A slower one goes on; the answer is then `processing` with `Retry-After`.
 */
const CHALLENGE_WAIT_MS = 2000;

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
  const { services, ca, urls, params, jws, now, account } = call;
  if (jws && !jws.postAsGet && account) {
    // Started in one statement, which finds the challenge and checks it is this account's and pending;
    // leased to this instance's runner, which validates at once. A crash leaves the lease to lapse,
    // and another runner takes the work over (lib/acme/runner.ts).
    const start = { caId: ca.id, slug: params.slug, accountId: account.id };
    const claimed = await services.acme.startValidation(start, services.runner.owner, services.options.leaseMs, now);
    if (claimed) {
      const shown = (await services.runner.validateNow(claimed, CHALLENGE_WAIT_MS)) ?? claimed.challenge;
      return challengeAnswer(shown, claimed.authorizationSlug, urls);
    }
  }
  // A read, or a start that did not apply (not pending, not this account's, unknown): as it is now.
  const authz = owned(call, await services.acme.findAuthorizationByChallenge(ca.id, params.slug));
  const current = authz.challenges.find((c) => c.slug === params.slug);
  if (!current) throw unauthorized('You are not authorized to perform this request.');
  return challengeAnswer(current, authz.slug, urls);
}

function challengeAnswer(shown: AcmeChallengeRecord, authorizationSlug: string, urls: AcmeCall['urls']): AcmeAnswer {
  // RFC 8555 §8.2: while validation goes on, when to ask again.
  const headers: Record<string, string> = shown.status === 'processing' ? { 'Retry-After': '1' } : {};
  return { status: 200, body: challengeJson(shown, urls), headers, links: [`<${urls.authorization(authorizationSlug)}>;rel="up"`] };
}
