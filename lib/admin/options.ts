/**
 * Options of the admin web interface (`createCaAdminRouter`, docs/guides/admin-interface.md), validated
 * when it is constructed: every mistake is an `OptionsError` naming `createCaAdminRouter` and the option.
 */
import type { ProfileConfig, Profiles } from '../ca/profiles';
import type { LogError } from '../http/error-catch';
import {
  checkBoolean,
  checkKeyBackends,
  checkOptionNames,
  checkStore,
  environment,
  hasMethods,
  isObjectLike,
  OptionsError,
  resolveErrorLog,
  show,
} from '../http/option-checks';
import { resolveProfileOptions, withProfileSettings, type DefaultExpires } from '../http/profile-options';
import {
  type Authenticator,
  type KeyBackend,
  type Logger,
  type LoginAttemptLimiter,
  type PermissionChecker,
  type SecretBox,
  type Store,
} from '../ports';

const ENTRY = 'createCaAdminRouter';

export interface AdminSessionOptions {
  /** A session unused for this long ends. Default 30 minutes. */
  idleTimeoutMs?: number;
  /** A session this old ends, used or not. Default 12 hours. */
  absoluteTimeoutMs?: number;
  /**
   * The sensitive actions (revoke, CA edit, EAB keys, ACME account deactivation, webhook and user changes) need
   * the password typed within this long (at sign-in or on the re-authentication page). Default 5 minutes.
   */
  stepUpMs?: number;
}

export interface CaAdminRouterOptions {
  /** Persistence (`Store`, with its admin sessions: `store.adminSessions`). Required. */
  store: Store;
  /** Where the interface is served, relative to where the router is mounted: `''` or ending in `/`. Default `'admin/'`. */
  path?: string;
  /** Who may sign in: default `storeAuthenticator(store)` (the library's users and their bcrypt hashes). */
  authenticator?: Authenticator;
  /** What a signed-in user may see and do: default `storePermissionChecker(store)` (the REST API's permissions and per-CA grants). */
  permissions?: PermissionChecker;
  /** Brute-force protection of the sign-in form. Default `loginAttemptLimiter()`; `databaseLoginAttemptLimiter(knex)` for fleets. */
  loginLimiter?: LoginAttemptLimiter;
  session?: AdminSessionOptions;
  /**
   * Key backends by alias, to issue certificates from the interface. Default: the default backend
   * when `CA_KEY_ENCRYPTION_KEY` is set; else issuing is unavailable (the page says why) and the rest
   * of the interface works.
   */
  keyBackends?: Record<string, KeyBackend>;
  /**
   * Profiles, merged into the built-in ones as `createCaApiRouter`'s option is. Default: `CA_PROFILES`
   * (docs/reference/environment.md), as for `createCaApiRouter` and `ca-admin`.
   */
  profiles?: Record<string, ProfileConfig | null>;
  /** The profile chosen first on the issue page. Default `CA_DEFAULT_PROFILE`, else `webserver`. */
  defaultProfile?: string;
  /**
   * The lifetime of certificates of profiles that set none: a number of days, `{ days }` or `{ ms }`.
   * Default `CA_DEFAULT_EXPIRES` (days), else 100 days.
   */
  defaultExpires?: DefaultExpires;
  /**
   * Seals the secrets of webhook endpoints added or rotated on the webhooks page (as `ca-admin
   * add_webhook` does). Default: the box under `CA_KEY_ENCRYPTION_KEY` when it is set; else adding
   * and rotating are unavailable (the page says why).
   */
  webhookSecrets?: SecretBox;
  /**
   * Seals the MAC keys of the ACME external account binding keys made on a CA's page (as `ca-admin
   * create_acme_eab_key` does); give the ACME router's `acme.eabSecrets` if it has one. Default: the box
   * under `CA_KEY_ENCRYPTION_KEY` when it is set; else making keys is unavailable (the page says why).
   */
  eabSecrets?: SecretBox;
  /**
   * Environment for the defaults of options left out (`CA_PROFILES`, `CA_DEFAULT_PROFILE`,
   * `CA_DEFAULT_EXPIRES`, `CA_KEY_ENCRYPTION_KEY`). Default `process.env`.
   */
  env?: Record<string, string | undefined>;
  /**
   * Refuse requests that reach the interface over plain HTTP from another machine (a password and a
   * session cookie would cross the network in clear). Loopback clients are always served. Default true.
   */
  requireTls?: boolean;
  /** Where unexpected errors are reported (never with credentials). Default `console.error`. */
  logger?: Logger;
}

export const ADMIN_ROUTER_OPTION_NAMES: readonly (keyof CaAdminRouterOptions)[] = [
  'store',
  'path',
  'authenticator',
  'permissions',
  'loginLimiter',
  'session',
  'keyBackends',
  'profiles',
  'defaultProfile',
  'defaultExpires',
  'webhookSecrets',
  'eabSecrets',
  'env',
  'requireTls',
  'logger',
];

export interface ResolvedAdminOptions {
  store: Store;
  /** `/${path}`: where the pages are, relative to where the router is mounted. */
  prefix: string;
  idleTimeoutMs: number;
  absoluteTimeoutMs: number;
  stepUpMs: number;
  requireTls: boolean;
  /** As given (the package entry adds the default backend when it can). */
  keyBackends: Record<string, KeyBackend>;
  /** The profiles in effect: the built-in ones merged with `profiles` (or `CA_PROFILES`). */
  profiles: Profiles;
  defaultProfile: string;
  /** The lifetime of profiles that set none (already in `profiles`). */
  defaultExpiresMs: number;
  /** As given; the package entry adds the default box when it can. */
  webhookSecrets: SecretBox | null;
  /** As given; the package entry adds the default box when it can. */
  eabSecrets: SecretBox | null;
  logger: Logger | null;
  logError: LogError;
}

/** What the pages read and write (the store's users, CAs and certificates). */
const STORE_METHODS = ['findCaBySerial', 'getCa', 'listCas', 'findCertificate', 'listCertificates', 'getUserById', 'revokeCertificate'];

function checkDuration(name: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new OptionsError(`option \`session.${name}\` must be an integer of milliseconds ≥ ${min} (got ${show(value)})`, ENTRY);
  }
  return value;
}

function checkPath(value: unknown): string {
  if (value === undefined) return 'admin/';
  if (typeof value !== 'string' || !/^([A-Za-z0-9._~-]+\/)*$/.test(value)) {
    throw new OptionsError(`option \`path\` must be '' or path segments each ending in '/', e.g. 'admin/' (got ${show(value)})`, ENTRY);
  }
  return value;
}

/** Apply defaults and validate; the ports (`authenticator`, …) are checked and defaulted by the package entry. */
export function resolveAdminOptions(options: CaAdminRouterOptions): ResolvedAdminOptions {
  checkOptionNames(options, ADMIN_ROUTER_OPTION_NAMES, '{ store }', ENTRY);
  const store = checkStore(options.store, STORE_METHODS, ENTRY);
  if (!store) throw new OptionsError('option `store` is required, e.g. createCaAdminRouter({ store: knexStore(db) })', ENTRY);
  const session = options.session ?? {};
  if (!isObjectLike(session)) throw new OptionsError(`option \`session\` must be an object (got ${show(session)})`, ENTRY);
  for (const [name, methods] of [
    ['authenticator', ['authenticate']],
    ['permissions', ['hasPermission']],
    ['loginLimiter', ['check', 'failed', 'succeeded']],
    ['webhookSecrets', ['seal', 'open']],
    ['eabSecrets', ['seal', 'open']],
  ] as const) {
    const value = options[name];
    if (value !== undefined && !hasMethods(value, methods)) {
      throw new OptionsError(`option \`${name}\` must have the method(s) ${methods.join(', ')} (got ${show(value)})`, ENTRY);
    }
  }
  const idleTimeoutMs = checkDuration('idleTimeoutMs', session.idleTimeoutMs, 30 * 60_000, 1000);
  const absoluteTimeoutMs = checkDuration('absoluteTimeoutMs', session.absoluteTimeoutMs, 12 * 3600_000, idleTimeoutMs);
  const stepUpMs = checkDuration('stepUpMs', session.stepUpMs, 5 * 60_000, 1000);
  const { logger, logError } = resolveErrorLog({ logger: options.logger }, ENTRY);
  // The profiles REST and ca-admin sign with (lib/settings): the options, else CA_PROFILES & co.
  const signing = resolveProfileOptions(withProfileSettings(options, environment(options.env), ENTRY), ENTRY);
  return {
    store,
    prefix: `/${checkPath(options.path)}`,
    idleTimeoutMs,
    absoluteTimeoutMs,
    stepUpMs,
    requireTls: checkBoolean('requireTls', options.requireTls, true, ENTRY),
    keyBackends: checkKeyBackends(options.keyBackends, ENTRY),
    profiles: signing.effectiveProfiles,
    defaultProfile: signing.defaultProfile,
    defaultExpiresMs: signing.defaultExpiresMs,
    webhookSecrets: options.webhookSecrets ?? null,
    eabSecrets: options.eabSecrets ?? null,
    logger,
    logError,
  };
}
