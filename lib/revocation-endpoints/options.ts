/**
 * Options of the revocation endpoints, validated when they are mounted: alone by
 * `createRevocationRouter` (docs/guides/revocation.md), or beside the REST API by
 * `createCaApiRouter`, which checks `ocspSigning` here too. Every mistake is an `OptionsError` naming
 * the option.
 */
import type { ProfileConfig, Profiles } from '../ca/profiles';
import type { LogError } from '../http/error-catch';
import {
  checkKeyBackends,
  resolveErrorLog,
  checkOptionNames,
  checkStore,
  environment,
  hasMethods,
  isObjectLike,
  OptionsError,
  resolveUrlPath,
  show,
  type OptionsEntry,
} from '../http/option-checks';
import { profilesWithSettings } from '../http/profile-options';
import { METRICS_SINK_METHODS, type KeyBackend, type Logger, type MetricsSink, type RevocationStore, type Store } from '../ports';

export type OcspSigning = 'delegate' | 'ca';

export interface RevocationRouterOptions {
  /** Persistence, with the `RevocationStore` capability (the knex store has it). Required. */
  store: Store;
  /**
   * Key backends by alias (the CA row's `key_backend_alias`), to sign CRLs and OCSP answers. Default
   * (filled in by the package entry, as for `createCaApiRouter`): `{ default: defaultKeyBackend() }`,
   * keys in the store under `CA_KEY_ENCRYPTION_KEY`.
   */
  keyBackends?: Record<string, KeyBackend>;
  /** Prefix of the endpoints, `''` or ending in `/` (`CA_URL_PATH`). Default `'django_ca/'`. */
  urlPath?: string;
  /**
   * Who signs OCSP responses: `'delegate'` (default), an automatically created and renewed responder
   * certificate of the CA (profile `ocsp`, key in the CA's key backend); or `'ca'`, the CA key itself.
   */
  ocspSigning?: OcspSigning;
  /**
   * Merged into the built-in profiles as `createCaApiRouter`'s option is; only `ocsp` matters here
   * (delegated responders). Default `CA_PROFILES` (and `CA_DEFAULT_EXPIRES`), as for `createCaApiRouter`.
   */
  profiles?: Record<string, ProfileConfig | null>;
  /** Where the endpoints log unexpected errors (docs/operations/logs.md). Default `console.error`. */
  logger?: Logger;
  /** Deprecated: pass `logger`. Where unexpected errors are reported (never with credentials); wins over `logger`. */
  logError?: LogError;
  /** Environment to read `CA_URL_PATH`, `CA_PROFILES`, `CA_DEFAULT_EXPIRES` and (for the default key backend) `CA_KEY_ENCRYPTION_KEY` from. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** A router made by `createMetricsRouter`: OCSP answers and CRL builds are counted there (docs/operations/metrics.md). */
  metrics?: { readonly sink: MetricsSink };
}

export const REVOCATION_ROUTER_OPTION_NAMES: readonly (keyof RevocationRouterOptions)[] = [
  'store',
  'keyBackends',
  'urlPath',
  'ocspSigning',
  'profiles',
  'logger',
  'logError',
  'env',
  'metrics',
];

/** The options after defaults and validation. */
export interface ResolvedRevocationOptions {
  store: Store & RevocationStore;
  /** As given; the package entry adds the default backend when none was given. */
  keyBackends: Record<string, KeyBackend>;
  urlPath: string;
  /** `/${urlPath}`: where the endpoints are served, relative to where the router is mounted. */
  prefix: string;
  ocspSigning: OcspSigning;
  /** The profiles in effect (the built-in ones merged with `profiles`). */
  profiles: Profiles;
  logError: LogError;
  /** Where OCSP answers and CRL builds are reported; null: nowhere. */
  metrics: MetricsSink | null;
}

/** What the CA cache, the CRL publisher and the OCSP responder read and write (lib/ca/crls.ts, ocsp.ts). */
const STORE_METHODS = ['findCaBySerial', 'getCa', 'findCertificate', 'insertCertificate'];

export function checkOcspSigning(value: unknown, entry: OptionsEntry): OcspSigning {
  const ocspSigning = value ?? 'delegate';
  if (ocspSigning !== 'delegate' && ocspSigning !== 'ca') {
    throw new OptionsError(`option \`ocspSigning\` must be 'delegate' or 'ca' (got ${show(ocspSigning)})`, entry);
  }
  return ocspSigning;
}

/** Apply defaults and validate. Throws `OptionsError` with an actionable message. */
export function resolveRevocationRouterOptions(options: RevocationRouterOptions): ResolvedRevocationOptions {
  const entry = 'createRevocationRouter';
  checkOptionNames(options, REVOCATION_ROUTER_OPTION_NAMES, '{ store }', entry);
  const env = environment(options.env);
  const store = checkStore(options.store, STORE_METHODS, entry);
  if (!store) throw new OptionsError('option `store` is required, e.g. createRevocationRouter({ store: knexStore(db) })', entry);
  const urlPath = resolveUrlPath(options.urlPath, env, entry);
  return {
    store,
    keyBackends: checkKeyBackends(options.keyBackends, entry),
    urlPath,
    prefix: `/${urlPath}`,
    ocspSigning: checkOcspSigning(options.ocspSigning, entry),
    profiles: profilesWithSettings(options.profiles, env, entry),
    logError: resolveErrorLog(options, entry).logError,
    metrics: checkMetricsTarget(options.metrics, entry),
  };
}

/** `metrics`: a router made by `createMetricsRouter` (anything with a `MetricsSink` as `sink`). */
function checkMetricsTarget(value: unknown, entry: OptionsEntry): MetricsSink | null {
  if (value === undefined) return null;
  const sink = isObjectLike(value) ? (value as { sink?: unknown }).sink : undefined;
  if (!hasMethods(sink, METRICS_SINK_METHODS)) {
    throw new OptionsError('option `metrics` must be a router made by createMetricsRouter({ store, … })', entry);
  }
  return sink as MetricsSink;
}
