/**
 * The options both enrolment modules share (docs/guides/est.md, docs/guides/scep.md): the CA and profile of the URLs
 * without a label, and other CAs, profiles or challenges by label. Each module validates its own
 * option (helmet's way) with these checks, so that `est` and `scep` read alike and fail alike: an
 * `OptionsError` naming the option.
 */
import { checkBoolean, checkOptionNames, isObjectLike, OptionsError, show } from '../http/option-checks';
import { ENDPOINT_LABEL } from './endpoint-labels';
import { resolveChallengeWebhook, type ChallengeWebhook, type ChallengeWebhookOptions } from './challenge-webhook';
import { isRequestBudget, MAX_REQUESTS_PER_MINUTE } from './rate-limit';
import { resolveNamePolicy, type EnrolmentNamePolicy, type EnrolmentNamePolicyOptions } from './name-policy';

/** One place to enrol: a CA (serial or name; null: the default CA), a profile (null: the default), a challenge. */
export interface EnrolmentEndpoint {
  ca: string | null;
  profile: string | null;
  /** The static challenge password a request must carry (SCEP); null: none is accepted. */
  challenge: string | null;
  /** Validity of the certificates in days, clamped by the CA; null: the profile's or the CA's default. */
  validityDays: number | null;
  /** New enrolments wait for an operator (lib/enrolment/approval.ts); renewals do not. */
  approval: boolean;
  /** The name policy (lib/enrolment/name-policy.ts); null: any name. */
  names: EnrolmentNamePolicy | null;
  /** The webhook that decides challenges neither static nor one-time (lib/enrolment/challenge-webhook.ts); null: none. */
  challengeWebhook: ChallengeWebhook | null;
  /** The endpoint's budget of enrolment requests a minute in this process (lib/enrolment/rate-limit.ts); null: none. */
  requestsPerMinute: number | null;
}

/** What a label of either module may say. */
export interface EndpointLabelOptions {
  /** The CA: its serial or its name. */
  ca: string;
  /** The profile of the certificates (lib/ca/profiles.ts). Default: the router's default profile. */
  profile?: string;
  /** Validity of the certificates in days, clamped by the CA. Default: the profile's. */
  validityDays?: number;
  /** New enrolments wait for an operator's approval (`ca-admin approve_enrolment_request`). Default false. */
  approval?: boolean;
  /** The name policy of the certificates issued here (docs/guides/est.md, docs/guides/scep.md). Default: none, any name. */
  names?: EnrolmentNamePolicyOptions | null;
  /** The host's webhook deciding challenge passwords (docs/guides/scep.md, docs/guides/est.md). Default: none. */
  challengeWebhook?: ChallengeWebhookOptions | null;
  /** At most this many enrolment requests a minute here, per process; more get 429 (docs/guides/est.md, docs/guides/scep.md). Default: no limit. */
  requestsPerMinute?: number | null;
}

/** Labels are one path segment, and never a name the module's URLs use otherwise (endpoint-labels.ts). */
const LABEL = ENDPOINT_LABEL;

/** A whole number from 1 to 1,000,000, or null when not given. */
function optionalRate(name: string, value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (!isRequestBudget(value)) {
    throw new OptionsError(
      `option \`${name}\` must be a whole number of requests a minute, from 1 to ${MAX_REQUESTS_PER_MINUTE} (got ${show(value)})`,
    );
  }
  return value;
}

/** A whole number of days, at least 1, or null when not given. */
export function optionalDays(name: string, value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new OptionsError(`option \`${name}\` must be a whole number of days, at least 1 (got ${show(value)})`);
  }
  return value;
}

export function optionalText(name: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new OptionsError(`option \`${name}\` must be a non-empty string (got ${show(value)})`);
  }
  return value;
}

/**
 * The endpoints of `module`'s options `o`: '' for the URLs without a label, then each label.
 * `reserved`: path segments a label may not take; `fields`: what an endpoint may say besides `ca`
 * and `profile` (`challenge`; `serverKeygen`, which EST reads itself: lib/est/options.ts).
 */
export function resolveEndpoints(
  module: 'est' | 'scep',
  o: Record<string, unknown>,
  reserved: readonly string[],
  fields: readonly ('challenge' | 'serverKeygen')[] = [],
): Map<string, EnrolmentEndpoint> {
  const endpoint = (prefix: string, value: Record<string, unknown>, caRequired: boolean): EnrolmentEndpoint => {
    const ca = optionalText(`${prefix}.ca`, value.ca);
    if (caRequired && ca === null) throw new OptionsError(`option \`${prefix}.ca\` is required: the serial or name of the CA`);
    const challenge = fields.includes('challenge') ? optionalText(`${prefix}.challenge`, value.challenge) : null;
    const validityDays = optionalDays(`${prefix}.validityDays`, value.validityDays);
    const approval = checkBoolean(`${prefix}.approval`, value.approval, false);
    const names = resolveNamePolicy(`${prefix}.names`, value.names);
    const challengeWebhook = resolveChallengeWebhook(`${prefix}.challengeWebhook`, value.challengeWebhook);
    const profile = optionalText(`${prefix}.profile`, value.profile);
    const requestsPerMinute = optionalRate(`${prefix}.requestsPerMinute`, value.requestsPerMinute);
    return { ca, profile, challenge, validityDays, approval, names, challengeWebhook, requestsPerMinute };
  };
  const endpoints = new Map<string, EnrolmentEndpoint>([['', endpoint(module, o, false)]]);
  if (o.labels === undefined) return endpoints;
  if (!isObjectLike(o.labels)) throw new OptionsError(`option \`${module}.labels\` must be an object of labels (got ${show(o.labels)})`);
  for (const [label, value] of Object.entries(o.labels)) {
    if (!LABEL.test(label) || reserved.includes(label)) {
      throw new OptionsError(
        `option \`${module}.labels\`: ${show(label)} cannot be a label: use letters, digits, '_', '.' and '-', and not ${reserved.join(', ')}`,
      );
    }
    if (!isObjectLike(value))
      throw new OptionsError(`option \`${module}.labels.${label}\` must be an object such as { ca: 'Device CA' } (got ${show(value)})`);
    checkOptionNames(
      value,
      ['ca', 'profile', 'validityDays', 'approval', 'names', 'challengeWebhook', 'requestsPerMinute', ...fields],
      `{ ${module}: { labels: { ${label}: { ca: 'Device CA' } } } }`,
      'createCaApiRouter',
    );
    endpoints.set(label, endpoint(`${module}.labels.${label}`, value as Record<string, unknown>, true));
  }
  return endpoints;
}

/** A positive whole number of bytes, or `fallback`. */
export function checkBodyLimit(name: string, value: unknown, fallback: number): number {
  const limit = value ?? fallback;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit <= 0) {
    throw new OptionsError(`option \`${name}\` must be a positive whole number of bytes (got ${show(limit)})`);
  }
  return limit;
}
