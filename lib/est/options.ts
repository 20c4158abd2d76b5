/**
 * Options of the EST module (README "EST"), validated when it is built: `createCaApiRouter`'s `est`
 * option. Every mistake is an `OptionsError` naming the option.
 */
import { checkBoolean, checkOptionNames, isObjectLike, OptionsError, show } from '../http/option-checks';

/** What one label of `/.well-known/est/{label}/` enrols with. */
export interface EstLabelOptions {
  /** The CA: its serial or its name. */
  ca: string;
  /** The profile of the certificates (lib/ca/profiles.ts). Default: the router's default profile. */
  profile?: string;
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
  /** `/.well-known/est/{label}/…`: other CAs or profiles, by label (`[A-Za-z0-9_.-]+`, not an operation's name). */
  labels?: Record<string, EstLabelOptions>;
  /** Largest request body in bytes (a base64 PKCS#10). Default 64 KiB. */
  bodyLimit?: number;
}

/** One place to enrol: a CA (serial or name; null: the default CA) and a profile (null: the default). */
export interface EstEndpoint {
  ca: string | null;
  profile: string | null;
}

export interface ResolvedEstOptions {
  enabled: boolean;
  /** The label-less URLs' endpoint under '', every label's under its name. */
  endpoints: ReadonlyMap<string, EstEndpoint>;
  bodyLimit: number;
}

export const DEFAULT_EST_BODY_LIMIT = 64 * 1024;
/** RFC 7030 §3.2.2's operations: a label named like one would make `/.well-known/est/{op}/…` ambiguous. */
export const EST_OPERATIONS = ['cacerts', 'simpleenroll', 'simplereenroll', 'fullcmc', 'serverkeygen', 'csrattrs'] as const;
const LABEL = /^[A-Za-z0-9_.-]+$/;
const NAMES = ['enabled', 'ca', 'profile', 'labels', 'bodyLimit'];

function optionalText(name: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new OptionsError(`option \`${name}\` must be a non-empty string (got ${show(value)})`);
  }
  return value;
}

/** `options` (the router's `est`), with `enabledByEnvironment` (`CA_ENABLE_EST`) where it says nothing. */
export function resolveEstOptions(options: unknown, enabledByEnvironment: boolean): ResolvedEstOptions {
  if (options === undefined)
    return { enabled: enabledByEnvironment, endpoints: new Map([['', { ca: null, profile: null }]]), bodyLimit: DEFAULT_EST_BODY_LIMIT };
  if (!isObjectLike(options)) throw new OptionsError(`option \`est\` must be an object such as { enabled: true } (got ${show(options)})`);
  checkOptionNames(options, NAMES, '{ est: { enabled: true } }', 'createCaApiRouter');
  const o = options as EstOptions;
  const enabled = checkBoolean('est.enabled', o.enabled, enabledByEnvironment);
  const endpoints = new Map<string, EstEndpoint>([
    ['', { ca: optionalText('est.ca', o.ca), profile: optionalText('est.profile', o.profile) }],
  ]);
  if (o.labels !== undefined) {
    if (!isObjectLike(o.labels)) throw new OptionsError(`option \`est.labels\` must be an object of labels (got ${show(o.labels)})`);
    for (const [label, value] of Object.entries(o.labels)) {
      if (!LABEL.test(label) || (EST_OPERATIONS as readonly string[]).includes(label)) {
        throw new OptionsError(
          `option \`est.labels\`: ${show(label)} cannot be a label: use letters, digits, '_', '.' and '-', and not an operation's name (${EST_OPERATIONS.join(', ')})`,
        );
      }
      if (!isObjectLike(value))
        throw new OptionsError(`option \`est.labels.${label}\` must be an object such as { ca: 'Device CA' } (got ${show(value)})`);
      checkOptionNames(value, ['ca', 'profile'], `{ est: { labels: { ${label}: { ca: 'Device CA' } } } }`, 'createCaApiRouter');
      const entry = value as EstLabelOptions;
      const ca = optionalText(`est.labels.${label}.ca`, entry.ca);
      if (ca === null) throw new OptionsError(`option \`est.labels.${label}.ca\` is required: the serial or name of the CA`);
      endpoints.set(label, { ca, profile: optionalText(`est.labels.${label}.profile`, entry.profile) });
    }
  }
  const bodyLimit = o.bodyLimit ?? DEFAULT_EST_BODY_LIMIT;
  if (typeof bodyLimit !== 'number' || !Number.isInteger(bodyLimit) || bodyLimit <= 0) {
    throw new OptionsError(`option \`est.bodyLimit\` must be a positive whole number of bytes (got ${show(bodyLimit)})`);
  }
  return { enabled, endpoints, bodyLimit };
}
