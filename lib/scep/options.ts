/**
 * Options of the SCEP module (docs/guides/scep.md), validated when it is built: `createCaApiRouter`'s
 * `scep` option. Every mistake is an `OptionsError` naming the option.
 */
import { SCEP_CLIENT_SUFFIXES } from '../enrolment/endpoint-labels';
import type { ChallengeWebhookOptions } from '../enrolment/challenge-webhook';
import type { EnrolmentNamePolicyOptions } from '../enrolment/name-policy';
import { checkBodyLimit, resolveEndpoints, type EndpointLabelOptions, type EnrolmentEndpoint } from '../enrolment/endpoint-options';
import { checkBoolean, checkOptionNames, isObjectLike, OptionsError, show } from '../http/option-checks';

/** What one label of `{urlPath}scep/{label}` enrols with. */
export interface ScepLabelOptions extends EndpointLabelOptions {
  /** The static challenge password of this label's requests. */
  challenge?: string;
}

export interface ScepOptions {
  /** Serve SCEP (RFC 8894) at `{urlPath}scep`. Default false (`CA_ENABLE_SCEP`). */
  enabled?: boolean;
  /** The CA of the URLs without a label: its serial or name. Default: the default CA, as EST's. */
  ca?: string;
  /** The profile of the URLs without a label. Default: the router's default profile. */
  profile?: string;
  /** Validity in days of the certificates of the URLs without a label, clamped by the CA. Default: the profile's. */
  validityDays?: number;
  /**
   * The static challenge password that a PKCSReq of the URLs without a label must carry in its CSR
   * (`CA_SCEP_CHALLENGE`). Without one, such URLs enrol with one-time challenges only
   * (`ca-admin create_enrolment_challenge`); renewals need none.
   */
  challenge?: string;
  /**
   * The name policy of the URLs without a label (docs/guides/est.md, docs/guides/scep.md): DNS suffixes and IP networks
   * to allow and deny (as `edit_ca --acme-allow/--acme-deny`) and the subject attribute types allowed.
   * Default: none, any name.
   */
  names?: EnrolmentNamePolicyOptions | null;
  /**
   * The host's webhook deciding the challenge passwords of the URLs without a label (docs/guides/scep.md,
   * "EST"): a challenge that is neither static nor one-time is POSTed there, signed as the outgoing
   * webhooks are; only `{"allow": true}` accepts it. Default: none.
   */
  challengeWebhook?: ChallengeWebhookOptions | null;
  /** At most this many PKIOperations a minute at the URL without a label, per process; more get 429. Default: no limit. */
  requestsPerMinute?: number | null;
  /** `{urlPath}scep/{label}`: other CAs, profiles or challenges, by label (`[A-Za-z0-9_.-]+`). */
  labels?: Record<string, ScepLabelOptions>;
  /**
   * Accept single DES, triple DES and SHA-1, which deployed clients still send (micromdm's scepclient
   * sends nothing else). Default true; false leaves AES and SHA-2 only.
   */
  legacyAlgorithms?: boolean;
  /** Largest PKIOperation message in bytes. Default 256 KiB. */
  bodyLimit?: number;
  /**
   * New enrolments (PKCSReq) at the URLs without a label wait for an operator (`ca-admin
   * approve_enrolment_request`): answered PENDING until then; the client polls (CertPoll, or the same
   * PKCSReq again). Renewals do not wait. Default false. Labels say it each for themselves.
   */
  approval?: boolean;
}

export interface ResolvedScepOptions {
  enabled: boolean;
  /** The label-less URLs' endpoint under '', every label's under its name. */
  endpoints: ReadonlyMap<string, EnrolmentEndpoint>;
  legacyAlgorithms: boolean;
  bodyLimit: number;
}

export const DEFAULT_SCEP_BODY_LIMIT = 256 * 1024;
/** Path segments that clients append to a SCEP URL, never a label: kept with the endpoints' label rules (lib/enrolment/endpoint-labels.ts). */
export { SCEP_CLIENT_SUFFIXES };
const NAMES = [
  'enabled',
  'ca',
  'profile',
  'validityDays',
  'challenge',
  'labels',
  'names',
  'challengeWebhook',
  'requestsPerMinute',
  'legacyAlgorithms',
  'bodyLimit',
  'approval',
];

/**
 * `options` (the router's `scep`), with the environment's `CA_ENABLE_SCEP` (`enabledByEnvironment`)
 * and `CA_SCEP_CHALLENGE` (`challengeByEnvironment`) where it says nothing.
 */
export function resolveScepOptions(
  options: unknown,
  enabledByEnvironment: boolean,
  challengeByEnvironment: string | null,
): ResolvedScepOptions {
  if (options !== undefined && !isObjectLike(options)) {
    throw new OptionsError(`option \`scep\` must be an object such as { enabled: true, challenge: '…' } (got ${show(options)})`);
  }
  if (options !== undefined) checkOptionNames(options, NAMES, '{ scep: { enabled: true } }', 'createCaApiRouter');
  const o = { ...((options ?? {}) as Record<string, unknown>) };
  if (o.challenge === undefined && challengeByEnvironment !== null) o.challenge = challengeByEnvironment;
  return {
    enabled: checkBoolean('scep.enabled', o.enabled, enabledByEnvironment),
    endpoints: resolveEndpoints('scep', o, SCEP_CLIENT_SUFFIXES, ['challenge']),
    legacyAlgorithms: checkBoolean('scep.legacyAlgorithms', o.legacyAlgorithms, true),
    bodyLimit: checkBodyLimit('scep.bodyLimit', o.bodyLimit, DEFAULT_SCEP_BODY_LIMIT),
  };
}
