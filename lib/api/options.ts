/**
 * The REST API's own options (docs/reference/options.md), validated when the router is built: every mistake is
 * an `OptionsError` that names the option — never later, inside a request. The options every module
 * shares (`urlPath`, `store`, `keyBackends`, `logError`, `env`) are checked by the composition
 * (lib/options.ts) with the same shared checks (lib/http/option-checks.ts).
 */
import type { ProfileConfig, Profiles } from '../ca/profiles';
import { checkBoolean, hasMethods, OptionsError, show } from '../http/option-checks';
import { resolveProfileOptions, type DefaultExpires } from '../http/profile-options';
import type { Authenticator, LoginAttemptLimiter, OrderRunner, PermissionChecker } from '../ports';

export interface RestApiOptions {
  /** Default: `storeAuthenticator(store)` (bcrypt hashes of the store's users). */
  authenticator?: Authenticator;
  /** Default: `storePermissionChecker(store)` (permissions of the store's users). */
  permissions?: PermissionChecker;
  /**
   * Brute-force protection of Basic auth (docs/operations/hostile-clients-and-outages.md "Brute-force protection"). Default (filled in by the
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
  /** Largest accepted request body in bytes. Default 2.5 MiB (Django's DATA_UPLOAD_MAX_MEMORY_SIZE). */
  bodyLimit?: number;
}

/** The names above, in the order docs/reference/options.md lists them. */
export const REST_API_OPTION_NAMES: readonly (keyof RestApiOptions)[] = [
  'authenticator',
  'permissions',
  'loginLimiter',
  'profiles',
  'defaultProfile',
  'defaultExpires',
  'orderRunner',
  'orderWaitMs',
  'signInRequest',
  'bodyLimit',
];

/** The REST API's options after defaults and validation. */
export interface ResolvedRestApiOptions {
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
  bodyLimit: number;
}

export const DEFAULT_BODY_LIMIT = 2.5 * 1024 * 1024;
export const DEFAULT_ORDER_WAIT_MS = 2000;

function checkPorts(options: RestApiOptions): void {
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
}

/** Apply the REST API's defaults and validate its options. Throws `OptionsError` with an actionable message. */
export function resolveRestApiOptions(options: RestApiOptions): ResolvedRestApiOptions {
  checkPorts(options);
  const { profiles, effectiveProfiles: effective, defaultProfile, defaultExpiresMs } = resolveProfileOptions(options);

  const orderWaitMs = options.orderWaitMs ?? DEFAULT_ORDER_WAIT_MS;
  if (typeof orderWaitMs !== 'number' || !Number.isFinite(orderWaitMs) || orderWaitMs < 0) {
    throw new OptionsError(`option \`orderWaitMs\` must be a number of milliseconds, 0 or more, such as 2000 (got ${show(orderWaitMs)})`);
  }
  const signInRequest = checkBoolean('signInRequest', options.signInRequest, true);
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  if (typeof bodyLimit !== 'number' || !Number.isInteger(bodyLimit) || bodyLimit <= 0) {
    throw new OptionsError(`option \`bodyLimit\` must be a positive whole number of bytes such as 2621440 (got ${show(bodyLimit)})`);
  }

  return {
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
    bodyLimit,
  };
}
