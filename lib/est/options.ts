/**
 * Options of the EST module (docs/guides/est.md), validated when it is built: `createCaApiRouter`'s `est`
 * option. Every mistake is an `OptionsError` naming the option.
 */
import { EST_OPERATIONS } from '../enrolment/endpoint-labels';
import type { ChallengeWebhookOptions } from '../enrolment/challenge-webhook';
import type { EnrolmentNamePolicyOptions } from '../enrolment/name-policy';
import { checkBodyLimit, resolveEndpoints, type EndpointLabelOptions, type EnrolmentEndpoint } from '../enrolment/endpoint-options';
import { checkBoolean, checkOptionNames, isObjectLike, OptionsError, show } from '../http/option-checks';
import { clientCertificateHeaderProblem } from './client-certificate';

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
  /** Validity in days of the certificates of the URLs without a label, clamped by the CA. Default: the profile's. */
  validityDays?: number;
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
  /** At most this many enrolment requests a minute at the URLs without a label, per process; more get 429. Default: no limit. */
  requestsPerMinute?: number | null;
  /** `/.well-known/est/{label}/…`: other CAs or profiles, by label (`[A-Za-z0-9_.-]+`, not an operation's name). */
  labels?: Record<string, EstLabelOptions>;
  /** Largest request body in bytes (a base64 PKCS#10). Default 64 KiB. */
  bodyLimit?: number;
  /**
   * Offer `serverkeygen` (RFC 7030 §4.4: the server makes the key pair and sends the private key back)
   * at the URLs without a label. Default false (`CA_EST_SERVERKEYGEN`): 501. Labels say it each for itself.
   */
  serverKeygen?: boolean;
  /**
   * New enrolments at the URLs without a label wait for an operator (`ca-admin approve_enrolment_request`):
   * answered 202 with `Retry-After` until then (RFC 7030 §4.2.3). Default false. Labels say it each for itself.
   */
  approval?: boolean;
  /** The `Retry-After` of a 202 (seconds, a whole number from 1 to 86400). Default 60: strongSwan's poll interval. */
  retryAfterSeconds?: number;
  /**
   * Behind a TLS-terminating proxy: the header in which it forwards the client's certificate (e.g.
   * `'X-SSL-Client-Cert'`, nginx's `$ssl_client_escaped_cert`), read only from a peer the host's
   * `trust proxy` trusts. Default none (`CA_EST_CLIENT_CERT_HEADER`): only TLS client certificates.
   */
  clientCertificateHeader?: string;
}

export interface ResolvedEstOptions {
  enabled: boolean;
  /** The label-less URLs' endpoint under '', every label's under its name. */
  endpoints: ReadonlyMap<string, EnrolmentEndpoint>;
  bodyLimit: number;
  /** The endpoints ('' or a label) that offer `serverkeygen`. */
  serverKeygen: ReadonlySet<string>;
  /** The `Retry-After` of a request left waiting for approval. */
  retryAfterSeconds: number;
  /** The header a trusted proxy forwards client certificates in, or null. */
  clientCertificateHeader: string | null;
}

export const DEFAULT_EST_BODY_LIMIT = 64 * 1024;
/** strongSwan's `pki --est` polls every `max(--interval, Retry-After)`, its --interval 60 s by default. */
export const DEFAULT_EST_RETRY_AFTER_SECONDS = 60;
/** RFC 7030 §3.2.2's operations, never a label: kept with the endpoints' label rules (lib/enrolment/endpoint-labels.ts). */
export { EST_OPERATIONS };
const NAMES = [
  'enabled',
  'ca',
  'profile',
  'validityDays',
  'labels',
  'names',
  'challengeWebhook',
  'requestsPerMinute',
  'bodyLimit',
  'serverKeygen',
  'approval',
  'retryAfterSeconds',
  'clientCertificateHeader',
];

/**
 * `options` (the router's `est`), with `enabledByEnvironment` (`CA_ENABLE_EST`),
 * `serverKeygenByEnvironment` (`CA_EST_SERVERKEYGEN`, the label-less URLs) and
 * `clientCertificateHeaderByEnvironment` (`CA_EST_CLIENT_CERT_HEADER`) where it says nothing.
 */
export function resolveEstOptions(
  options: unknown,
  enabledByEnvironment: boolean,
  serverKeygenByEnvironment = false,
  clientCertificateHeaderByEnvironment?: string,
): ResolvedEstOptions {
  const headerByEnvironment = clientCertificateHeaderSetting(clientCertificateHeaderByEnvironment);
  if (options === undefined)
    return {
      enabled: enabledByEnvironment,
      endpoints: resolveEndpoints('est', {}, EST_OPERATIONS),
      bodyLimit: DEFAULT_EST_BODY_LIMIT,
      serverKeygen: new Set(serverKeygenByEnvironment ? [''] : []),
      retryAfterSeconds: DEFAULT_EST_RETRY_AFTER_SECONDS,
      clientCertificateHeader: headerByEnvironment,
    };
  if (!isObjectLike(options)) throw new OptionsError(`option \`est\` must be an object such as { enabled: true } (got ${show(options)})`);
  checkOptionNames(options, NAMES, '{ est: { enabled: true } }', 'createCaApiRouter');
  const o = options as Record<string, unknown>;
  const endpoints = resolveEndpoints('est', o, EST_OPERATIONS, ['serverKeygen']);
  const serverKeygen = serverKeygenEndpoints(o, serverKeygenByEnvironment);
  for (const [label, endpoint] of endpoints) {
    // A key made by the server would have to be kept until an operator decides: not offered.
    if (endpoint.approval && serverKeygen.has(label)) {
      const prefix = label === '' ? 'est' : `est.labels.${label}`;
      throw new OptionsError(
        `option \`${prefix}.approval\` cannot be combined with \`${prefix}.serverKeygen\`: serverkeygen answers at once`,
      );
    }
  }
  return {
    enabled: checkBoolean('est.enabled', o.enabled, enabledByEnvironment),
    endpoints,
    bodyLimit: checkBodyLimit('est.bodyLimit', o.bodyLimit, DEFAULT_EST_BODY_LIMIT),
    serverKeygen,
    retryAfterSeconds: checkRetryAfter(o.retryAfterSeconds),
    clientCertificateHeader: clientCertificateHeaderOption(o.clientCertificateHeader, headerByEnvironment),
  };
}

/** A whole number of seconds from 1 to a day (strongSwan parses only integers: RFC 7231 §7.1.3's delay-seconds). */
function checkRetryAfter(value: unknown): number {
  const seconds = value ?? DEFAULT_EST_RETRY_AFTER_SECONDS;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > 86400) {
    throw new OptionsError(`option \`est.retryAfterSeconds\` must be a whole number of seconds from 1 to 86400 (got ${show(seconds)})`);
  }
  return seconds;
}

/** `CA_EST_CLIENT_CERT_HEADER`: empty or unset is none. */
function clientCertificateHeaderSetting(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  const problem = clientCertificateHeaderProblem(raw.trim());
  if (problem) throw new OptionsError(`CA_EST_CLIENT_CERT_HEADER ${problem} (got ${show(raw)})`);
  return raw.trim();
}

function clientCertificateHeaderOption(value: unknown, byEnvironment: string | null): string | null {
  if (value === undefined) return byEnvironment;
  const problem = clientCertificateHeaderProblem(value);
  if (problem) throw new OptionsError(`option \`est.clientCertificateHeader\` ${problem} (got ${show(value)})`);
  return value as string;
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
