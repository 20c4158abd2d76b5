/**
 * Starting a challenge's validation (RFC 8555 §7.5.1): in one statement, which finds the challenge and
 * checks it is this account's and pending and writes its `acme_validation` job leased to this instance,
 * which validates at once and is waited for a little. A crash leaves the lease (`acme.leaseMs`) to
 * lapse, and another runner takes the job over (runner.ts; docs/DESIGN.md "ACME", "Background jobs").
 */
import type { AcmeChallengeRecord } from '../ports';
import type { AcmeServices } from './services';
import { onChallengeStart } from './state-machine';

/**
 * How long a challenge POST waits for the validation it started: most finish in milliseconds, and a
 * client whose answer already has the result saves its poll interval (acme-client waits 5 s, certbot
 * 3 s). A slower one goes on; the answer is then `processing` with `Retry-After`.
 */
const CHALLENGE_WAIT_MS = 2000;

/**
 * The challenge as it stands after its validation started (or finished within the wait), with its
 * authorization's slug; null when no validation started (not pending, not this account's, unknown).
 */
export async function startChallenge(
  services: AcmeServices,
  start: { caId: number; slug: string; accountId: number },
  now: Date,
): Promise<{ challenge: AcmeChallengeRecord; authorizationSlug: string } | null> {
  const claimed = await services.acme.startValidation(start, services.runner.owner, services.options.leaseMs, now, onChallengeStart());
  if (!claimed) return null;
  const shown = (await services.runner.validateNow(claimed, CHALLENGE_WAIT_MS)) ?? claimed.challenge;
  return { challenge: shown, authorizationSlug: claimed.authorizationSlug };
}
