/**
 * Authorizations and challenges (RFC 8555 §7.5): read an authorization, deactivate it (§7.5.2, which
 * the original refuses), and start a challenge's validation (§7.5.1, lib/acme/challenges.ts), which
 * the runner carries out (lib/acme/runner.ts). Only the account that owns the order may see or act on them.
 */
import type { AcmeAuthorizationRecord, AcmeChallengeRecord } from '../../ports';
import { isJsonObject, ownMember } from '../encoding';
import { startChallenge } from '../challenges';
import { authorizationJson, challengeJson } from '../objects';
import { malformed, unauthorized } from '../problems';
import type { AcmeAnswer, AcmeCall } from '../route-types';
import { canDeactivateAuthorization, onAuthorizationDeactivated } from '../state-machine';

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
    if (canDeactivateAuthorization(authz.status)) {
      const moved = await services.acme.applyChange(onAuthorizationDeactivated(authz));
      // Moved: it is what it was, deactivated; else another request moved it first (as the store has it now).
      authz = moved ? { ...authz, status: 'deactivated' } : owned(call, await services.acme.findAuthorization(ca.id, params.slug));
    }
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
    const started = await startChallenge(services, { caId: ca.id, slug: params.slug, accountId: account.id }, now);
    if (started) return challengeAnswer(started.challenge, started.authorizationSlug, urls);
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
