/**
 * Options of `createCaApiRouter`, validated once at construction: the options of the router itself
 * (which modules it mounts, where, over which store) checked here, and each module's own options
 * checked by that module (lib/api/options.ts for the REST API, lib/revocation-endpoints/options.ts for
 * `ocspSigning`), all with the shared checks of lib/http/option-checks.ts.
 *
 * Every mistake a host can make here is reported when the router is built, with a message that names
 * the option, says what was expected and shows what was given — never later, inside a request.
 * Environment variables with the names of the original settings are read only when the option itself
 * is absent, through lib/settings — the reading `ca-admin` uses, so that both agree.
 */
import { DEFAULT_PROFILE_CONFIGS, type ProfileConfig } from './ca/profiles';
import type { LogError } from './http/error-catch';
import {
  checkBoolean,
  checkKeyBackends,
  resolveErrorLog,
  checkOptionNames,
  checkStore,
  fromEnvironment,
  OptionsError,
  resolveUrlPath,
  show,
} from './http/option-checks';
import { defaultCaSetting, environment, estClientCertHeaderSetting, scepChallengeSetting, switchSetting } from './settings';
import { withProfileSettings, type DefaultExpires } from './http/profile-options';
import { resolveAllowedHosts, type AllowedHosts } from './http/allowed-hosts';
import { REST_API_OPTION_NAMES, resolveRestApiOptions, type ResolvedRestApiOptions, type RestApiOptions } from './api/options';
import { checkOcspSigning, type OcspSigning } from './revocation-endpoints/options';
import { moduleSettings, type RestSettings, type RevocationSettings } from './options-shape';
import { resolveEstOptions, type EstOptions, type ResolvedEstOptions } from './est/options';
import { resolveScepOptions, type ResolvedScepOptions, type ScepOptions } from './scep/options';
import { resolveAcmeOptions, type AcmeOptions, type ResolvedAcmeOptions } from './acme/options';
import { resolveMetricsOptions, type MetricsOptions, type MetricsReportTarget, type ResolvedMetricsOptions } from './metrics/options';
import { resolveWebhookOptions, type ResolvedWebhookOptions, type WebhookOptions } from './webhooks/options';
import type { KeyBackend, Logger, Store } from './ports';

export type { ProfileConfig, DefaultExpires, AcmeOptions, ResolvedAcmeOptions, MetricsOptions, ResolvedMetricsOptions };
export type { WebhookOptions, ResolvedWebhookOptions, RestSettings, RevocationSettings };
export { OptionsError };
export { DEFAULT_BODY_LIMIT, DEFAULT_ORDER_WAIT_MS } from './api/options';
export { DEFAULT_URL_PATH } from './http/option-checks';

/** Names of the built-in profiles, in their configured order (docs/COMPATIBILITY.md §3.5). */
export const DEFAULT_PROFILE_NAMES: readonly string[] = Object.keys(DEFAULT_PROFILE_CONFIGS);

export interface CaApiRouterOptions extends RestApiOptions {
  /** The REST API's settings (README "Options"): `{ enabled, orderWaitMs, signInRequest, bodyLimit }`. */
  rest?: RestSettings;
  /** The public revocation endpoints' settings: `{ enabled, ocspSigning }`. */
  revocation?: RevocationSettings;
  /** @deprecated Use `rest.enabled`. Serve the API at all (`CA_ENABLE_REST_API`). Default false. */
  enableRestApi?: boolean;
  /** @deprecated Use `rest.orderWaitMs`. */
  orderWaitMs?: number;
  /** @deprecated Use `rest.signInRequest`. */
  signInRequest?: boolean;
  /** @deprecated Use `rest.bodyLimit`. */
  bodyLimit?: number;
  /**
   * How long a certificate's issuance may take from its recorded intent to its stored row before it
   * counts as interrupted (its process died) and is marked failed (ms; README "Issuing authority").
   * Default `DEFAULT_ISSUANCE_LEASE_MS` (10 minutes): far beyond any signature, an HSM's included.
   */
  issuanceLeaseMs?: number;
  /** Prefix of the API, `''` or ending in `/` (`CA_URL_PATH`). Default `'django_ca/'`. */
  urlPath?: string;
  /** Persistence; required when the API is enabled. */
  store?: Store;
  /**
   * The host names the router answers for, as Django's `ALLOWED_HOSTS` (`CA_ALLOWED_HOSTS`,
   * comma-separated): `'ca.example.com'`, `'.example.com'` (the domain and its subdomains), an IP
   * address, `'*'`. Other hosts get a 400 (README "Options"). Default: every host.
   */
  allowedHosts?: readonly string[];
  /**
   * Key backends by alias (the CA row's `key_backend_alias`). Default (filled in by the package
   * entry): `{ default: defaultKeyBackend() }`, keys in the store under `CA_KEY_ENCRYPTION_KEY`.
   */
  keyBackends?: Record<string, KeyBackend>;
  /** @deprecated Use `revocation.enabled`. Serve the CA certificate, CRLs and OCSP beside the API. Default true. */
  serveRevocation?: boolean;
  /** @deprecated Use `revocation.ocspSigning`. Who signs OCSP responses: `'delegate'` (default) or `'ca'`. */
  ocspSigning?: OcspSigning;
  /**
   * Where the router logs (README "Logs"): unexpected errors, and each request when `accessLog` is on.
   * Default: errors to `console.error` as before; access lines to `jsonLinesLogger()` (standard output).
   */
  logger?: Logger;
  /** One line per request the router's modules answer (method, path, status, duration, user, address, protocol). Default false. */
  accessLog?: boolean;
  /**
   * @deprecated Pass `logger` instead. Where unexpected errors are reported (never with credentials);
   * when given, it is used for errors rather than `logger`. Default `console.error`.
   */
  logError?: LogError;
  /**
   * The ACME server (RFC 8555) under `/{urlPath}acme/` for CAs with `acme_enabled` (README "ACME").
   * Off unless `acme.enabled` (or `CA_ENABLE_ACME`) says so.
   */
  acme?: AcmeOptions;
  /**
   * EST (RFC 7030) at `/.well-known/est/` (README "EST"): devices enrol with an API user's password.
   * Off unless `est.enabled` (or `CA_ENABLE_EST`) says so.
   */
  est?: EstOptions;
  /**
   * SCEP (RFC 8894) at `{urlPath}scep` (README "SCEP"): devices enrol with a challenge password, and
   * renew with their certificate. Off unless `scep.enabled` (or `CA_ENABLE_SCEP`) says so.
   */
  scep?: ScepOptions;
  /**
   * Prometheus metrics (README "Metrics"): `{ enabled: true }` serves them at `/metrics` beside the
   * other modules; a router made by `createMetricsRouter` (served elsewhere) receives this router's
   * reports instead. Off by default.
   */
  metrics?: MetricsOptions | MetricsReportTarget;
  /**
   * Webhooks (README "Webhooks"): `{ enabled: true }` delivers the store's domain events to the
   * endpoints managed by `ca-admin add_webhook` (or `addWebhook`), signed per Standard Webhooks, from
   * this process. Off by default; `createWebhookDelivery` runs delivery alone.
   */
  webhooks?: WebhookOptions;
  /**
   * Environment to read the settings of options left out from (`CA_ENABLE_REST_API`, `CA_URL_PATH`,
   * `CA_ALLOWED_HOSTS`, `CA_ENABLE_ACME`, `CA_ENABLE_EST`, `CA_ENABLE_SCEP`, `CA_SCEP_CHALLENGE`, `CA_DEFAULT_CA`, `CA_PROFILES`, `CA_DEFAULT_PROFILE`,
   * `CA_DEFAULT_EXPIRES`: README "Settings from the environment") and, for the default key backend,
   * `CA_KEY_ENCRYPTION_KEY`. Default `process.env`.
   */
  env?: Record<string, string | undefined>;
}

/** The options after defaults and validation. */
export interface ResolvedOptions extends ResolvedRestApiOptions {
  enableRestApi: boolean;
  urlPath: string;
  /** `/${urlPath}api/` */
  apiRoot: string;
  /** Lower case, IPv6 in brackets; null: every host. */
  allowedHosts: AllowedHosts;
  store: Store | null;
  /** As given; the package entry adds the default backend when none was given. */
  keyBackends: Record<string, KeyBackend>;
  serveRevocation: boolean;
  ocspSigning: OcspSigning;
  logError: LogError;
  /** As given; the package entry fills in `jsonLinesLogger()` when `accessLog` is on without one. */
  logger: Logger | null;
  accessLog: boolean;
  acme: ResolvedAcmeOptions;
  est: ResolvedEstOptions;
  scep: ResolvedScepOptions;
  /** `CA_DEFAULT_CA`: the CA that ACME's, EST's and SCEP's default URLs serve; null: the usable CA that expires last. */
  defaultCa: string | null;
  metrics: ResolvedMetricsOptions;
  webhooks: ResolvedWebhookOptions;
  issuanceLeaseMs: number;
}

/** `issuanceLeaseMs`'s default. */
export const DEFAULT_ISSUANCE_LEASE_MS = 10 * 60_000;

function checkIssuanceLease(value: unknown): number {
  if (value === undefined) return DEFAULT_ISSUANCE_LEASE_MS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 100) {
    throw new OptionsError(`option \`issuanceLeaseMs\` must be an integer number of milliseconds, at least 100 (got ${show(value)})`);
  }
  return value;
}

const KNOWN_OPTIONS: readonly string[] = [
  'rest',
  'revocation',
  'enableRestApi',
  'urlPath',
  'allowedHosts',
  'store',
  'keyBackends',
  ...REST_API_OPTION_NAMES,
  'serveRevocation',
  'ocspSigning',
  'logError',
  'logger',
  'accessLog',
  'acme',
  'est',
  'scep',
  'metrics',
  'webhooks',
  'issuanceLeaseMs',
  'env',
];

const STORE_METHODS = ['findCaBySerial', 'listCas', 'findUser', 'getUserById', 'createOrder', 'getOrder'];

/** Apply defaults and validate. Throws `OptionsError` with an actionable message. */
export function resolveOptions(given: CaApiRouterOptions = {}): ResolvedOptions {
  const entry = 'createCaApiRouter';
  checkOptionNames(given, KNOWN_OPTIONS, '{ rest: { enabled: true }, store }', entry);
  const options: CaApiRouterOptions = moduleSettings(given);
  const env = environment(options.env);

  // The environment's settings are read as ca-admin reads them (lib/settings), only for options the host left out.
  const enableRestApi =
    options.enableRestApi === undefined
      ? fromEnvironment(() => switchSetting(env, 'CA_ENABLE_REST_API', false))
      : checkBoolean('enableRestApi', options.enableRestApi, false);
  const urlPath = resolveUrlPath(options.urlPath, env, entry);
  const allowedHosts = resolveAllowedHosts(options.allowedHosts, env, entry);
  const store = checkStore(options.store, STORE_METHODS, entry);
  const acmeEnv = fromEnvironment(() => ({ enabled: switchSetting(env, 'CA_ENABLE_ACME', false), defaultCa: defaultCaSetting(env) }));
  const acme = resolveAcmeOptions(options.acme, env, acmeEnv);
  const est = resolveEstOptions(
    options.est,
    fromEnvironment(() => switchSetting(env, 'CA_ENABLE_EST', false)),
    fromEnvironment(() => switchSetting(env, 'CA_EST_SERVERKEYGEN', false)),
    estClientCertHeaderSetting(env),
  );
  const scep = resolveScepOptions(
    options.scep,
    fromEnvironment(() => switchSetting(env, 'CA_ENABLE_SCEP', false)),
    scepChallengeSetting(env),
  );
  if ((enableRestApi || acme.enabled || est.enabled || scep.enabled) && store === null) {
    const what = enableRestApi ? 'the REST API' : acme.enabled ? 'ACME' : est.enabled ? 'EST' : 'SCEP';
    throw new OptionsError(
      `option \`store\` is required when ${what} is enabled, e.g. createCaApiRouter({ enableRestApi: true, store: knexStore(db) })`,
    );
  }
  // Without an explicit choice the package entry adds the default backend (keys in the store).
  const keyBackends = checkKeyBackends(options.keyBackends, entry);

  const restApi = resolveRestApiOptions(withProfileSettings(options, env, entry));
  const serveRevocation = checkBoolean('serveRevocation', options.serveRevocation, true);
  const ocspSigning = checkOcspSigning(options.ocspSigning, entry);
  const { logger, logError } = resolveErrorLog(options, entry);
  const accessLog = checkBoolean('accessLog', options.accessLog, false);
  const metrics = resolveMetricsOptions(options.metrics);
  const webhooks = resolveWebhookOptions(options.webhooks);

  return {
    enableRestApi,
    urlPath,
    apiRoot: `/${urlPath}api/`,
    allowedHosts,
    store,
    keyBackends,
    ...restApi,
    serveRevocation,
    ocspSigning,
    logError,
    logger,
    accessLog,
    acme,
    est,
    scep,
    defaultCa: acmeEnv.defaultCa,
    metrics,
    webhooks,
    issuanceLeaseMs: checkIssuanceLease(options.issuanceLeaseMs),
  };
}
