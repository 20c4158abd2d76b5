/**
 * Options of the EST module (README "EST"), validated when it is built: `createCaApiRouter`'s `est`
 * option. Every mistake is an `OptionsError` naming the option.
 */
import { checkBodyLimit, resolveEndpoints, type EndpointLabelOptions, type EnrolmentEndpoint } from '../enrolment/endpoint-options';
import { checkBoolean, checkOptionNames, isObjectLike, OptionsError, show } from '../http/option-checks';

/** What one label of `/.well-known/est/{label}/` enrols with. */
export type EstLabelOptions = EndpointLabelOptions;

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
  /** `/.well-known/est/{label}/…`: other CAs or profiles, by label (`[A-Za-z0-9_.-]+`, not an operation's name). */
  labels?: Record<string, EstLabelOptions>;
  /** Largest request body in bytes (a base64 PKCS#10). Default 64 KiB. */
  bodyLimit?: number;
}

export interface ResolvedEstOptions {
  enabled: boolean;
  /** The label-less URLs' endpoint under '', every label's under its name. */
  endpoints: ReadonlyMap<string, EnrolmentEndpoint>;
  bodyLimit: number;
}

export const DEFAULT_EST_BODY_LIMIT = 64 * 1024;
/** RFC 7030 §3.2.2's operations: a label named like one would make `/.well-known/est/{op}/…` ambiguous. */
export const EST_OPERATIONS = ['cacerts', 'simpleenroll', 'simplereenroll', 'fullcmc', 'serverkeygen', 'csrattrs'] as const;
const NAMES = ['enabled', 'ca', 'profile', 'labels', 'bodyLimit'];

/** `options` (the router's `est`), with `enabledByEnvironment` (`CA_ENABLE_EST`) where it says nothing. */
export function resolveEstOptions(options: unknown, enabledByEnvironment: boolean): ResolvedEstOptions {
  if (options === undefined)
    return { enabled: enabledByEnvironment, endpoints: resolveEndpoints('est', {}, EST_OPERATIONS), bodyLimit: DEFAULT_EST_BODY_LIMIT };
  if (!isObjectLike(options)) throw new OptionsError(`option \`est\` must be an object such as { enabled: true } (got ${show(options)})`);
  checkOptionNames(options, NAMES, '{ est: { enabled: true } }', 'createCaApiRouter');
  const o = options as Record<string, unknown>;
  return {
    enabled: checkBoolean('est.enabled', o.enabled, enabledByEnvironment),
    endpoints: resolveEndpoints('est', o, EST_OPERATIONS),
    bodyLimit: checkBodyLimit('est.bodyLimit', o.bodyLimit, DEFAULT_EST_BODY_LIMIT),
  };
}
