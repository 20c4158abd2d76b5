/**
 * Options of the EST module (README "EST"), validated when it is built: `createCaApiRouter`'s `est`
 * option. Every mistake is an `OptionsError` naming the option.
 */
import type { ChallengeWebhookOptions } from '../enrolment/challenge-webhook';
import type { EnrolmentNamePolicyOptions } from '../enrolment/name-policy';
import { checkBodyLimit, resolveEndpoints, type EndpointLabelOptions, type EnrolmentEndpoint } from '../enrolment/endpoint-options';
import { checkBoolean, checkOptionNames, isObjectLike, OptionsError, show } from '../http/option-checks';

/** What one label of `/.well-known/est/{label}/` enrols with. */
export interface EstLabelOptions extends EndpointLabelOptions {
  /** Offer `serverkeygen` (RFC 7030 §4.4) at this label. Default false: 501. */
  serverKeygen?: boolean;
}

export interface EstOptions {
  /** Serve EST (RFC 7030) at `/.well-known/est/`. Default false (`CA_ENABLE_EST`). */
  enabled?: boolean;
  /**
   * The CA of the URLs without a label: its serial or name. Default: the default CA (`CA_DEFAULT_CA`,
   * else the usable CA that expires last), as ACME's default directory.
   */
  ca?: string;
  /** The profile of the URLs without a label. Default: the router's default profile. */
  profile?: string;
  /**
   * The name policy of the URLs without a label (README "EST", "SCEP"): DNS suffixes and IP networks
   * to allow and deny (as `edit_ca --acme-allow/--acme-deny`) and the subject attribute types allowed.
   * Default: none, any name.
   */
  names?: EnrolmentNamePolicyOptions | null;
  /**
   * The host's webhook deciding the challenge passwords of the URLs without a label (README "SCEP",
   * "EST"): a challenge that is neither static nor one-time is POSTed there, signed as the outgoing
   * webhooks are; only `{"allow": true}` accepts it. Default: none.
   */
  challengeWebhook?: ChallengeWebhookOptions | null;
  /** `/.well-known/est/{label}/…`: other CAs or profiles, by label (`[A-Za-z0-9_.-]+`, not an operation's name). */
  labels?: Record<string, EstLabelOptions>;
  /** Largest request body in bytes (a base64 PKCS#10). Default 64 KiB. */
  bodyLimit?: number;
  /**
   * Offer `serverkeygen` (RFC 7030 §4.4: the server makes the key pair and sends the private key back)
   * at the URLs without a label. Default false (`CA_EST_SERVERKEYGEN`): 501. Labels say it each for itself.
   */
  serverKeygen?: boolean;
}

export interface ResolvedEstOptions {
  enabled: boolean;
  /** The label-less URLs' endpoint under '', every label's under its name. */
  endpoints: ReadonlyMap<string, EnrolmentEndpoint>;
  bodyLimit: number;
  /** The endpoints ('' or a label) that offer `serverkeygen`. */
  serverKeygen: ReadonlySet<string>;
}

export const DEFAULT_EST_BODY_LIMIT = 64 * 1024;
/** RFC 7030 §3.2.2's operations: a label named like one would make `/.well-known/est/{op}/…` ambiguous. */
export const EST_OPERATIONS = ['cacerts', 'simpleenroll', 'simplereenroll', 'fullcmc', 'serverkeygen', 'csrattrs'] as const;
const NAMES = ['enabled', 'ca', 'profile', 'labels', 'names', 'challengeWebhook', 'bodyLimit', 'serverKeygen'];

/**
 * `options` (the router's `est`), with `enabledByEnvironment` (`CA_ENABLE_EST`) and
 * `serverKeygenByEnvironment` (`CA_EST_SERVERKEYGEN`, the label-less URLs) where it says nothing.
 */
export function resolveEstOptions(options: unknown, enabledByEnvironment: boolean, serverKeygenByEnvironment = false): ResolvedEstOptions {
  if (options === undefined)
    return {
      enabled: enabledByEnvironment,
      endpoints: resolveEndpoints('est', {}, EST_OPERATIONS),
      bodyLimit: DEFAULT_EST_BODY_LIMIT,
      serverKeygen: new Set(serverKeygenByEnvironment ? [''] : []),
    };
  if (!isObjectLike(options)) throw new OptionsError(`option \`est\` must be an object such as { enabled: true } (got ${show(options)})`);
  checkOptionNames(options, NAMES, '{ est: { enabled: true } }', 'createCaApiRouter');
  const o = options as Record<string, unknown>;
  return {
    enabled: checkBoolean('est.enabled', o.enabled, enabledByEnvironment),
    endpoints: resolveEndpoints('est', o, EST_OPERATIONS, ['serverKeygen']),
    bodyLimit: checkBodyLimit('est.bodyLimit', o.bodyLimit, DEFAULT_EST_BODY_LIMIT),
    serverKeygen: serverKeygenEndpoints(o, serverKeygenByEnvironment),
  };
}

/** '' when the label-less URLs offer `serverkeygen`, and every label that says `serverKeygen: true`. */
function serverKeygenEndpoints(o: Record<string, unknown>, byEnvironment: boolean): Set<string> {
  const offered = new Set<string>();
  if (checkBoolean('est.serverKeygen', o.serverKeygen, byEnvironment)) offered.add('');
  // resolveEndpoints has checked that labels is an object of objects.
  for (const [label, value] of Object.entries((o.labels ?? {}) as Record<string, Record<string, unknown>>)) {
    if (checkBoolean(`est.labels.${label}.serverKeygen`, value.serverKeygen, false)) offered.add(label);
  }
  return offered;
}
