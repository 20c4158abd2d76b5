/**
 * The package's composition root: the one place (with the CLI's entry, lib/cli/main.ts) where the
 * library core (which depends only on the ports of lib/ports) meets the default adapters of
 * adapters/. `createCaApiRouter`, `createRevocationRouter`, `createMetricsRouter` and
 * `createWebhookDelivery` fill in a default adapter for every port the host did not bring. The
 * package entry (lib/index.ts) re-exports them with the rest of the public API (docs/reference/exports.md).
 */
import { signatureVerifierPool } from '../adapters/crypto/verify-pool';
import { challengeValidator } from '../adapters/acme-validation';
import { buildCaApiRouter, type ApiPorts, type CaApiRouter, type Closable, type CreateCaApiRouterInternals } from './router';
import { OptionsError, resolveOptions, type CaApiRouterOptions, type ResolvedOptions } from './options';
import { checkKeyBackendsConfigured, fromEnvironment, type OptionsEntry } from './http/option-checks';
import { resolveRevocationRouterOptions, type RevocationRouterOptions } from './revocation-endpoints/options';
import { buildRevocationRouter, type RevocationRouter } from './revocation-endpoints/router';
import { NO_METRICS, type Authenticator, type ChallengeValidator, type KeyBackend, type PermissionChecker, type Store } from './ports';
import { resolveMetricsRouterOptions, type MetricsRouterOptions } from './metrics/options';
import { buildMetricsRouter, type MetricsRouter } from './metrics/router';
import { resolveAdminOptions, type CaAdminRouterOptions } from './admin/options';
import { buildCaAdminRouter, type CaAdminRouter } from './admin/router';
import { promMetrics } from '../adapters/metrics';
import { envKekSecretBox } from '../adapters/keys/secret-box';
import { defaultKeyBackend, KEK_ENV, KeyBackendError } from '../adapters/keys';
import { storeAuthenticator } from '../adapters/auth/store-authenticator';
import { storePermissionChecker } from '../adapters/auth/store-permissions';
import { UserCache } from '../adapters/auth/user-cache';
import { loginAttemptLimiter } from '../adapters/auth/login-limiter';
import { jsonLinesLogger } from '../adapters/logging/json-lines';
import { inProcessOrderRunner } from './ca/order-runner/in-process';
import { httpWebhookSender } from '../adapters/webhooks/http-sender';
import { webhookDelivery, type WebhookDelivery } from './webhooks/delivery';
import {
  checkWebhookStore,
  resolveWebhookDeliveryOptions,
  type ResolvedWebhookTuning,
  type WebhookDeliveryOptions,
} from './webhooks/options';
import type { LogError } from './http/error-catch';
import { acmeValidationSettings, environment, keyEncryptionKeySetting } from './settings';
import type { MetricsSink, SecretBox } from './ports';

/**
 * The default key backend, with its key-encryption key checked now: a missing or malformed key is an
 * `OptionsError` when the router is built, never a failed order later. A host that wants another
 * key (the example server's generated development key, say) passes `keyBackends` itself.
 */
function checkedDefaultKeyBackend(env: Record<string, string | undefined>, entry: OptionsEntry): KeyBackend {
  const kek = keyEncryptionKeySetting(env);
  if (!kek) {
    throw new OptionsError(
      `no key-encryption key for CA private keys: set ${KEK_ENV} to 32 random bytes in base64 (openssl rand -base64 32), ` +
        'made once and kept — every stored CA key is encrypted under it — or pass keyBackends, e.g. ' +
        '{ default: defaultKeyBackend({ keyEncryptionKey }) }',
      entry,
    );
  }
  try {
    return defaultKeyBackend({ keyEncryptionKey: kek });
  } catch (e) {
    if (e instanceof KeyBackendError) throw new OptionsError(`${KEK_ENV}: ${e.message}`, entry);
    throw e;
  }
}

/** The key backends a router signs with: the host's, or the default one (keys in the store, under `CA_KEY_ENCRYPTION_KEY`). */
function keyBackendsOrDefault(
  given: Record<string, KeyBackend> | undefined,
  resolved: Record<string, KeyBackend>,
  env: Record<string, string | undefined>,
  entry: OptionsEntry,
): Record<string, KeyBackend> {
  if (given === undefined) return { default: checkedDefaultKeyBackend(env, entry) };
  checkKeyBackendsConfigured(resolved, entry);
  return resolved;
}

/**
 * Who a user is and what they may do: the host's ports, or the store's users (bcrypt in a worker
 * pool) with one user cache shared by the authenticator and the permission checker; what is made
 * here is added to `owned`, to be closed with the router.
 */
function userPorts(
  store: Store,
  authenticator: Authenticator | null | undefined,
  permissions: PermissionChecker | null | undefined,
  owned: Closable[],
): { authenticator: Authenticator; permissions: PermissionChecker; sharedUsers: () => UserCache } {
  let users: UserCache | null = null;
  const sharedUsers = (): UserCache => {
    if (!users) owned.push((users = new UserCache(store)));
    return users;
  };
  if (!authenticator) {
    const own = storeAuthenticator(store, { users: sharedUsers() });
    owned.push(own);
    authenticator = own;
  }
  permissions ??= storePermissionChecker(store, { users: sharedUsers() });
  return { authenticator, permissions, sharedUsers };
}

/**
 * The ports the host did not bring, filled with the default adapters: keys in the store encrypted
 * under `CA_KEY_ENCRYPTION_KEY`, Basic auth against the store's users (one user cache shared by the
 * authenticator and the permission checker), the in-process order runner, and the prom-client
 * metrics when the router serves them.
 */
function defaultPorts(resolved: ResolvedOptions, store: Store, given: CaApiRouterOptions): ApiPorts {
  const owned: Closable[] = [];
  const acmeValidator = acmeValidatorOf(resolved, given); // may throw: before anything is started
  const webhooks = resolved.webhooks.enabled // the same
    ? {
        secrets: webhookSecrets(undefined, environment(given.env), 'createCaApiRouter'),
        store: checkWebhookStore(store, 'createCaApiRouter', 'webhooks.enabled: '),
      }
    : null;
  const keyBackends = keyBackendsOrDefault(given.keyBackends, resolved.keyBackends, environment(given.env), 'createCaApiRouter');
  const { authenticator, permissions } = userPorts(store, resolved.authenticator, resolved.permissions, owned);
  const { metrics } = resolved;
  const metricsExposition = metrics.enabled
    ? promMetrics({ store, eventPollMs: metrics.eventPollMs, processMetrics: metrics.processMetrics, logError: resolved.logError })
    : null;
  if (metricsExposition) owned.push(metricsExposition);
  const metricsSink = metricsExposition?.sink ?? metrics.reportTo ?? NO_METRICS;
  const orderRunner =
    resolved.orderRunner ??
    inProcessOrderRunner({
      store,
      keyBackends,
      profiles: resolved.effectiveProfiles,
      defaultExpiresMs: resolved.defaultExpiresMs,
      logError: resolved.logError,
      metrics: metricsSink,
    });
  const loginLimiter = resolved.loginLimiter === false ? null : (resolved.loginLimiter ?? loginAttemptLimiter());
  // CSR self-signatures of sign requests, checked on a worker thread (docs/DESIGN.md "Issuance throughput").
  const signatureVerifier = signatureVerifierPool();
  owned.push(signatureVerifier);
  if (webhooks) owned.push(startDelivery(resolved.webhooks, webhooks.store, webhooks.secrets, resolved.logError, metricsSink));
  return {
    store,
    keyBackends,
    authenticator,
    permissions,
    loginLimiter,
    orderRunner,
    signatureVerifier,
    owned,
    metricsExposition,
    metricsSink,
    acmeValidator,
    acmeSecrets: resolved.acme.eabSecrets ?? envKekSecretBox(environment(given.env)),
    // The enrolment endpoints' challenge webhooks are signed as the outgoing webhooks are (docs/guides/scep.md).
    webhookSender: httpWebhookSender(),
  };
}

/**
 * The ACME challenge validator: the host's, or the package's own configured by `CA_ACME_DNS_SERVERS`,
 * `CA_ACME_HTTP01_PORT` and `CA_ACME_TLS_ALPN01_PORT` (docs/guides/acme.md); a bad setting is an OptionsError now.
 */
function acmeValidatorOf(resolved: ResolvedOptions, given: CaApiRouterOptions): ChallengeValidator | null {
  if (!resolved.acme.enabled) return null;
  if (resolved.acme.validator) return resolved.acme.validator;
  const settings = fromEnvironment(() => acmeValidationSettings(environment(given.env)), 'createCaApiRouter');
  try {
    return challengeValidator(settings);
  } catch (e) {
    throw new OptionsError(e instanceof Error ? e.message : String(e), 'createCaApiRouter');
  }
}

/**
 * The Express middleware that serves the API under `/{urlPath}api/` and the revocation endpoints under
 * `/{urlPath}` (lib/router.ts composes the modules). Options are validated once, here, and every
 * mistake is an `OptionsError` that says what to change (docs/reference/options.md).
 */
export function createCaApiRouter(options: CaApiRouterOptions = {}, internals: CreateCaApiRouterInternals = {}): CaApiRouter {
  const given = resolveOptions(options);
  // The access log's default logger: JSON lines on standard output (docs/operations/logs.md).
  const resolved = given.accessLog && !given.logger ? { ...given, logger: jsonLinesLogger() } : given;
  if (!(resolved.enableRestApi || resolved.acme.enabled) || !resolved.store) return buildCaApiRouter(resolved, null, internals);
  const ports = defaultPorts(resolved, resolved.store, options);
  return buildCaApiRouter({ ...resolved, keyBackends: { ...ports.keyBackends } }, ports, internals);
}

/**
 * The public revocation endpoints alone (issuer certificates, CRLs, OCSP under `/{urlPath}`), e.g. on
 * a separate, unauthenticated host app without the REST API (docs/guides/revocation.md).
 * Options are validated here, as `createCaApiRouter`'s are; without `keyBackends` the default key
 * backend is wired exactly as for `createCaApiRouter`.
 */
export function createRevocationRouter(options: RevocationRouterOptions): RevocationRouter {
  const resolved = resolveRevocationRouterOptions(options);
  const keyBackends = keyBackendsOrDefault(options.keyBackends, resolved.keyBackends, environment(options.env), 'createRevocationRouter');
  return buildRevocationRouter(resolved, keyBackends);
}

/**
 * The Prometheus metrics endpoint alone (docs/operations/metrics.md), e.g. on an internal port away from the
 * API: counts from the store's domain events (every process on the database), its state when scraped,
 * and — once the router is given as their `metrics` option — the reports of this process's
 * `createCaApiRouter` and `createRevocationRouter`. Options are validated here (`OptionsError`).
 */
export function createMetricsRouter(options: MetricsRouterOptions): MetricsRouter {
  const resolved = resolveMetricsRouterOptions(options);
  const { store, eventPollMs, processMetrics, logError } = resolved;
  return buildMetricsRouter(resolved, promMetrics({ store, eventPollMs, processMetrics, logError }));
}

/** The box that opens the endpoints' secrets: the host's, or the one under `CA_KEY_ENCRYPTION_KEY` (as `ca-admin add_webhook` seals them). */
function webhookSecrets(given: SecretBox | null | undefined, env: Record<string, string | undefined>, entry: OptionsEntry): SecretBox {
  let box: SecretBox | null = given ?? null;
  try {
    box ??= envKekSecretBox(env);
  } catch (e) {
    throw new OptionsError(`${KEK_ENV}: ${e instanceof Error ? e.message : String(e)}`, entry);
  }
  if (!box) {
    throw new OptionsError(`webhooks need ${KEK_ENV} (the endpoints' secrets are sealed under it), or \`secrets\``, entry);
  }
  return box;
}

function startDelivery(
  tuning: ResolvedWebhookTuning,
  store: Parameters<typeof webhookDelivery>[1]['store'],
  secrets: SecretBox,
  logError: LogError,
  metrics: MetricsSink,
): WebhookDelivery {
  return webhookDelivery(tuning, { store, secrets, sender: httpWebhookSender(), logError, metrics });
}

/**
 * Webhook delivery alone (docs/operations/webhooks.md), e.g. in a worker process beside the API servers: the
 * store's domain events, to the endpoints in the store, signed per Standard Webhooks. Several
 * deliveries (in one fleet on one PostgreSQL) share the work; each event reaches each endpoint once.
 * Options are validated here (`OptionsError`); `close()` stops it.
 */
export function createWebhookDelivery(options: WebhookDeliveryOptions): WebhookDelivery {
  const resolved = resolveWebhookDeliveryOptions(options);
  const secrets = webhookSecrets(resolved.secrets, environment(options.env), 'createWebhookDelivery');
  return startDelivery(resolved, resolved.store, secrets, resolved.logError, NO_METRICS);
}

/**
 * The admin web interface (docs/guides/admin-interface.md), for an internal host app. Options are validated
 * here; the library's users sign in (`storeAuthenticator`, one user cache shared with the permission
 * checker) behind the in-memory login limiter unless the host brings its own.
 */
export function createCaAdminRouter(options: CaAdminRouterOptions): CaAdminRouter {
  const resolved = resolveAdminOptions(options);
  const { store } = resolved;
  const owned: Closable[] = [];
  // Sessions read their user through the same cache (a page costs no user read while it is fresh).
  const { authenticator, permissions, sharedUsers } = userPorts(store, options.authenticator, options.permissions, owned);
  const env = environment(options.env);
  // Issuing needs keys; without them (no backends, no CA_KEY_ENCRYPTION_KEY) the rest still works.
  const keyBackends =
    options.keyBackends !== undefined || !keyEncryptionKeySetting(env)
      ? resolved.keyBackends
      : { default: checkedDefaultKeyBackend(env, 'createCaAdminRouter') };
  // One box under CA_KEY_ENCRYPTION_KEY for both kinds of secret the pages seal, made only if needed.
  const kekBox = resolved.webhookSecrets && resolved.eabSecrets ? null : envKekSecretBox(env);
  const webhookSecrets = resolved.webhookSecrets ?? kekBox;
  const eabSecrets = resolved.eabSecrets ?? kekBox;
  return buildCaAdminRouter(
    { ...resolved, keyBackends, webhookSecrets, eabSecrets },
    { authenticator, permissions, users: sharedUsers(), loginLimiter: options.loginLimiter ?? loginAttemptLimiter(), owned },
  );
}
