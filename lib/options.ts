/**
 * Options of `createCaApiRouter`, validated once at construction.
 *
 * Every mistake a host can make here is reported when the router is built, with a message that names
 * the option, says what was expected and shows what was given — never later, inside a request.
 * Environment variables with the names of the original settings (`CA_ENABLE_REST_API`,
 * `CA_URL_PATH`) are read only when the option itself is absent.
 */
import { DEFAULT_PROFILE_CONFIGS, resolveProfiles, type Profiles, type ProfileConfig } from './ca/profiles';
import type { Authenticator, KeyBackend, LoginAttemptLimiter, OrderRunner, PermissionChecker, Store } from './ports';
import { DAY_MS } from './x509/datetime';
import { X509Error } from './x509/errors';
import { isPlainObject } from './x509/plain-object';

export type { ProfileConfig };

/** Names of the built-in profiles, in their configured order (docs/COMPATIBILITY.md §3.5). */
export const DEFAULT_PROFILE_NAMES: readonly string[] = Object.keys(DEFAULT_PROFILE_CONFIGS);

export type DefaultExpires = number | { days: number } | { ms: number };

export interface CaApiRouterOptions {
  /** Serve the API at all (`CA_ENABLE_REST_API`). Default false: the router only calls `next()`. */
  enableRestApi?: boolean;
  /** Prefix of the API, `''` or ending in `/` (`CA_URL_PATH`). Default `'django_ca/'`. */
  urlPath?: string;
  /** Persistence; required when the API is enabled. */
  store?: Store;
  /**
   * Key backends by alias (the CA row's `key_backend_alias`). Default (filled in by the package
   * entry): `{ default: defaultKeyBackend() }`, keys in the store under `CA_KEY_ENCRYPTION_KEY`.
   */
  keyBackends?: Record<string, KeyBackend>;
  /** Default: `storeAuthenticator(store)` (bcrypt hashes of the store's users). */
  authenticator?: Authenticator;
  /** Default: `storePermissionChecker(store)` (permissions of the store's users). */
  permissions?: PermissionChecker;
  /**
   * Brute-force protection of Basic auth (README "Brute-force protection"). Default (filled in by the
   * package entry): `loginAttemptLimiter()`, failed attempts counted in memory, 10 per username and 30
   * per client address in 15 minutes; `databaseLoginAttemptLimiter(db)` shares the counts between
   * instances; `false` turns it off (e.g. when a proxy in front already limits).
   */
  loginLimiter?: LoginAttemptLimiter | false;
  /**
   * Merged into the built-in profiles like the original `CA_PROFILES` setting: an existing name is
   * shallow-updated, `null` deletes a profile, new names are appended.
   */
  profiles?: Record<string, ProfileConfig | null>;
  /** Profile used when a sign request names none (`CA_DEFAULT_PROFILE`). Default `'webserver'`. */
  defaultProfile?: string;
  /** Default certificate lifetime: a number of days, `{days}` or `{ms}`. Default 100 days. */
  defaultExpires?: DefaultExpires;
  /** Processes sign orders; the router starts it and stops it in `close()`. */
  orderRunner?: OrderRunner;
  /**
   * How long `POST .../sign/` and `.../resign/` wait for the order runner to finish their order before
   * answering, in ms. Default 2000; 0 answers at once. The answer is the order as created (`pending`,
   * as upstream) either way; waiting means that the client's first poll usually finds the certificate,
   * as with upstream's synchronous mode. Only runners that announce finished orders
   * (`onOrderSettled`, as the default runner does) can be waited for.
   */
  orderWaitMs?: number;
  /**
   * Let `POST .../sign/` and `.../resign/` have the order runner finish their order at once — sign
   * it in the request and write it already issued, in one statement — when the runner can
   * (`ImmediateOrders`: the default in-process runner, while started, on a store with
   * `IssuedOrderStore` such as the knex store). Default true. The answer is the order as placed
   * (`pending`) either way. `false` always queues orders for the runner — e.g. for a key backend slow
   * enough (a remote HSM) that batching its signatures matters more than a write per order.
   */
  signInRequest?: boolean;
  /**
   * Serve the public revocation endpoints (CA certificate, CRLs, OCSP) under `/{urlPath}` beside the
   * API, as the URLs in issued certificates expect. Default true.
   */
  serveRevocation?: boolean;
  /**
   * Who signs OCSP responses: `'delegate'` (default), an automatically created and renewed responder
   * certificate of the CA (profile `ocsp`, key in the CA's key backend); or `'ca'`, the CA key itself.
   */
  ocspSigning?: 'delegate' | 'ca';
  /** Largest accepted request body in bytes. Default 2.5 MiB (Django's DATA_UPLOAD_MAX_MEMORY_SIZE). */
  bodyLimit?: number;
  /** Where unexpected errors are reported (never with credentials). Default `console.error`. */
  logError?: (message: string, error: unknown) => void;
  /**
   * Environment to read `CA_ENABLE_REST_API`, `CA_URL_PATH` and (for the default key backend)
   * `CA_KEY_ENCRYPTION_KEY` from. Default `process.env`.
   */
  env?: Record<string, string | undefined>;
}

/** The options after defaults and validation. */
export interface ResolvedOptions {
  enableRestApi: boolean;
  urlPath: string;
  /** `/${urlPath}api/` */
  apiRoot: string;
  store: Store | null;
  /** As given; the package entry adds the default backend when none was given. */
  keyBackends: Record<string, KeyBackend>;
  authenticator: Authenticator | null;
  permissions: PermissionChecker | null;
  /** As given: a limiter, false (off) or null (the package entry adds the default). */
  loginLimiter: LoginAttemptLimiter | false | null;
  profiles: Record<string, ProfileConfig | null>;
  /** The profiles in effect: the built-in ones merged with `profiles`, each validated. */
  effectiveProfiles: Profiles;
  defaultProfile: string;
  defaultExpiresMs: number;
  orderRunner: OrderRunner | null;
  orderWaitMs: number;
  signInRequest: boolean;
  serveRevocation: boolean;
  ocspSigning: 'delegate' | 'ca';
  bodyLimit: number;
  logError: (message: string, error: unknown) => void;
}

export const DEFAULT_BODY_LIMIT = 2.5 * 1024 * 1024;
export const DEFAULT_ORDER_WAIT_MS = 2000;
export const DEFAULT_URL_PATH = 'django_ca/';

export class OptionsError extends Error {
  constructor(message: string) {
    super(`createCaApiRouter: ${message}`);
    this.name = 'OptionsError';
  }
}

/** A short, safe rendering of a bad value for an error message. */
function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return 'an array';
  return 'an object';
}

function hasMethods(v: unknown, names: string[]): boolean {
  return isPlainObjectLike(v) && names.every((n) => typeof (v as Record<string, unknown>)[n] === 'function');
}

/** Class instances count too (a Store is usually one). */
function isPlainObjectLike(v: unknown): v is object {
  return (typeof v === 'object' && v !== null) || typeof v === 'function';
}

function parseEnvBoolean(name: string, raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['', '0', 'false', 'no', 'off'].includes(v)) return false;
  throw new OptionsError(`environment variable ${name} must be true/false, 1/0, yes/no or on/off (got ${show(raw)})`);
}

function resolveUrlPath(value: unknown, source: string): string {
  if (typeof value !== 'string') {
    throw new OptionsError(`${source} must be a string such as 'django_ca/' or '' (got ${show(value)})`);
  }
  if (value.startsWith('/')) {
    throw new OptionsError(`${source} must not start with '/'; use 'django_ca/' rather than '/django_ca/' (got ${show(value)})`);
  }
  if (value !== '' && !value.endsWith('/')) {
    throw new OptionsError(`${source} must be '' or end with '/', e.g. '${value}/' (got ${show(value)})`);
  }
  // Only unreserved path characters: the value becomes part of a regular expression-free prefix match
  // and of the OpenAPI paths, and must not smuggle in '..', '?', '#' or percent escapes.
  if (!/^([A-Za-z0-9._~-]+\/)*$/.test(value) || value.split('/').some((seg) => seg === '.' || seg === '..')) {
    throw new OptionsError(
      `${source} may contain only letters, digits, '.', '_', '~', '-' and '/' separators, without empty, '.' or '..' segments (got ${show(value)})`,
    );
  }
  return value;
}

function resolveExpires(value: unknown): number {
  let days: number | undefined;
  let ms: number | undefined;
  if (typeof value === 'number') days = value;
  else if (isPlainObject(value) && Object.keys(value).length === 1 && typeof value.days === 'number') days = value.days;
  else if (isPlainObject(value) && Object.keys(value).length === 1 && typeof value.ms === 'number') ms = value.ms;
  else {
    throw new OptionsError(`option \`defaultExpires\` must be a number of days, { days: n } or { ms: n } (got ${show(value)})`);
  }
  const result = ms ?? (days as number) * DAY_MS;
  if (!Number.isFinite(result) || result <= 0) {
    throw new OptionsError(`option \`defaultExpires\` must be a positive duration (got ${show(days ?? ms)})`);
  }
  return Math.round(result);
}

function checkProfilesOption(value: unknown): Record<string, ProfileConfig | null> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) {
    throw new OptionsError(`option \`profiles\` must be an object mapping profile names to profile settings or null (got ${show(value)})`);
  }
  for (const [name, profile] of Object.entries(value)) {
    if (name === '' || name.includes('/')) {
      throw new OptionsError(`option \`profiles\`: profile names must be non-empty and must not contain '/' (got ${show(name)})`);
    }
    if (profile !== null && !isPlainObject(profile)) {
      throw new OptionsError(`option \`profiles\`: profile '${name}' must be an object, or null to remove it (got ${show(profile)})`);
    }
  }
  return value as Record<string, ProfileConfig | null>;
}

/** The profiles in effect; a profile the engine refuses is an OptionsError naming it. */
function effectiveProfiles(config: Record<string, ProfileConfig | null>, defaultExpiresMs: number): Profiles {
  try {
    return resolveProfiles(config, { defaultExpiresMs });
  } catch (e) {
    if (!(e instanceof X509Error)) throw e;
    const where = e.issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
    throw new OptionsError(`option \`profiles\`: ${where || e.message}`);
  }
}

const KNOWN_OPTIONS = new Set([
  'enableRestApi',
  'urlPath',
  'store',
  'keyBackends',
  'authenticator',
  'permissions',
  'loginLimiter',
  'profiles',
  'defaultProfile',
  'defaultExpires',
  'orderRunner',
  'orderWaitMs',
  'signInRequest',
  'serveRevocation',
  'ocspSigning',
  'bodyLimit',
  'logError',
  'env',
]);

const STORE_METHODS = ['findCaBySerial', 'listCas', 'findUser', 'getUserById', 'createOrder', 'getOrder'];

/** Apply defaults and validate. Throws `OptionsError` with an actionable message. */
export function resolveOptions(options: CaApiRouterOptions = {}): ResolvedOptions {
  if (!isPlainObjectLike(options)) {
    throw new OptionsError(`expected an options object such as { enableRestApi: true, store } (got ${show(options)})`);
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) {
      throw new OptionsError(`unknown option \`${key}\`; known options are ${[...KNOWN_OPTIONS].join(', ')}`);
    }
  }
  const env = options.env ?? process.env;

  let enableRestApi: boolean;
  if (options.enableRestApi !== undefined) {
    if (typeof options.enableRestApi !== 'boolean') {
      throw new OptionsError(`option \`enableRestApi\` must be true or false (got ${show(options.enableRestApi)})`);
    }
    enableRestApi = options.enableRestApi;
  } else {
    const raw = env.CA_ENABLE_REST_API;
    enableRestApi = raw === undefined ? false : parseEnvBoolean('CA_ENABLE_REST_API', raw);
  }

  const urlPath =
    options.urlPath !== undefined
      ? resolveUrlPath(options.urlPath, 'option `urlPath`')
      : env.CA_URL_PATH !== undefined
        ? resolveUrlPath(env.CA_URL_PATH, 'environment variable CA_URL_PATH')
        : DEFAULT_URL_PATH;

  const store = options.store ?? null;
  if (store !== null && !hasMethods(store, STORE_METHODS)) {
    throw new OptionsError('option `store` must implement the Store port of lib/ports (e.g. knexStore(knex(...)))');
  }
  if (enableRestApi && store === null) {
    throw new OptionsError(
      'option `store` is required when the REST API is enabled, e.g. createCaApiRouter({ enableRestApi: true, store: knexStore(db) })',
    );
  }

  // Without an explicit choice the package entry adds the default backend (keys in the store).
  const keyBackends = options.keyBackends ?? {};
  if (!isPlainObject(keyBackends)) {
    throw new OptionsError(`option \`keyBackends\` must be an object mapping aliases to key backends (got ${show(keyBackends)})`);
  }
  for (const [alias, backend] of Object.entries(keyBackends)) {
    if (!hasMethods(backend, ['createKey', 'importKey', 'getSigner'])) {
      throw new OptionsError(`option \`keyBackends\`: '${alias}' must implement the KeyBackend port (createKey, importKey, getSigner)`);
    }
    if ((backend as KeyBackend).alias !== alias) {
      throw new OptionsError(
        `option \`keyBackends\`: the backend under '${alias}' reports alias ${show((backend as KeyBackend).alias)}; the key and the alias must match`,
      );
    }
  }

  if (options.authenticator !== undefined && !hasMethods(options.authenticator, ['authenticate'])) {
    throw new OptionsError('option `authenticator` must have an authenticate(username, password) method');
  }
  if (options.permissions !== undefined && !hasMethods(options.permissions, ['hasPermission'])) {
    throw new OptionsError('option `permissions` must have a hasPermission(user, permission) method');
  }
  if (
    options.loginLimiter !== undefined &&
    options.loginLimiter !== false &&
    !hasMethods(options.loginLimiter, ['check', 'failed', 'succeeded'])
  ) {
    throw new OptionsError(
      'option `loginLimiter` must be false or implement the LoginAttemptLimiter port (check, failed, succeeded), e.g. loginAttemptLimiter({ maxFailuresPerUser: 5 })',
    );
  }
  if (options.orderRunner !== undefined && !hasMethods(options.orderRunner, ['start', 'stop', 'notify'])) {
    throw new OptionsError('option `orderRunner` must implement the OrderRunner port (start, stop, notify)');
  }

  const defaultExpiresMs = options.defaultExpires === undefined ? 100 * DAY_MS : resolveExpires(options.defaultExpires);

  const profiles = checkProfilesOption(options.profiles);
  const defaultProfile = options.defaultProfile ?? 'webserver';
  if (typeof defaultProfile !== 'string') {
    throw new OptionsError(`option \`defaultProfile\` must be a profile name such as 'webserver' (got ${show(defaultProfile)})`);
  }
  const effective = effectiveProfiles(profiles, defaultExpiresMs);
  if (!effective.has(defaultProfile)) {
    const names = [...effective.keys()];
    throw new OptionsError(
      `option \`defaultProfile\` names '${defaultProfile}', which is not a configured profile (configured: ${names.join(', ') || 'none'})`,
    );
  }

  const orderWaitMs = options.orderWaitMs ?? DEFAULT_ORDER_WAIT_MS;
  if (typeof orderWaitMs !== 'number' || !Number.isFinite(orderWaitMs) || orderWaitMs < 0) {
    throw new OptionsError(`option \`orderWaitMs\` must be a number of milliseconds, 0 or more, such as 2000 (got ${show(orderWaitMs)})`);
  }

  const signInRequest = options.signInRequest ?? true;
  if (typeof signInRequest !== 'boolean') {
    throw new OptionsError(`option \`signInRequest\` must be true or false (got ${show(signInRequest)})`);
  }

  const serveRevocation = options.serveRevocation ?? true;
  if (typeof serveRevocation !== 'boolean') {
    throw new OptionsError(`option \`serveRevocation\` must be true or false (got ${show(serveRevocation)})`);
  }
  const ocspSigning = options.ocspSigning ?? 'delegate';
  if (ocspSigning !== 'delegate' && ocspSigning !== 'ca') {
    throw new OptionsError(`option \`ocspSigning\` must be 'delegate' or 'ca' (got ${show(ocspSigning)})`);
  }

  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  if (typeof bodyLimit !== 'number' || !Number.isInteger(bodyLimit) || bodyLimit <= 0) {
    throw new OptionsError(`option \`bodyLimit\` must be a positive whole number of bytes such as 2621440 (got ${show(bodyLimit)})`);
  }
  if (options.logError !== undefined && typeof options.logError !== 'function') {
    throw new OptionsError('option `logError` must be a function (message, error) => void');
  }

  return {
    enableRestApi,
    urlPath,
    apiRoot: `/${urlPath}api/`,
    store,
    keyBackends: { ...keyBackends },
    authenticator: options.authenticator ?? null,
    permissions: options.permissions ?? null,
    loginLimiter: options.loginLimiter ?? null,
    profiles,
    effectiveProfiles: effective,
    defaultProfile,
    defaultExpiresMs,
    orderRunner: options.orderRunner ?? null,
    orderWaitMs,
    signInRequest,
    serveRevocation,
    ocspSigning,
    bodyLimit,
    logError: options.logError ?? ((message, error) => console.error(message, error)),
  };
}
