/**
 * `createCaApiRouter(options)`: one Express middleware that mounts the ways in (docs/DESIGN.md
 * "Modules (ways in)") the options ask for, each a module at its own prefix:
 *
 *   {urlPath}api/   the REST API (lib/api/mount.ts): django-ca's API, JSON everywhere (D11)
 *   {urlPath}       the revocation endpoints (lib/revocation-endpoints/mount.ts): issuer, CRLs, OCSP
 *   {urlPath}acme/  the ACME server (lib/acme/mount.ts): RFC 8555 for CAs with `acme_enabled`, when `acme.enabled`
 *   /.well-known/est/  EST (lib/est/mount.ts): RFC 7030 device enrolment, when `est.enabled`
 *   {urlPath}scep   SCEP (lib/scep/mount.ts): RFC 8894 device enrolment, when `scep.enabled`
 *   /metrics        the metrics endpoint (lib/metrics/mount.ts), when `metrics.enabled` (docs/operations/metrics.md)
 *
 * A request goes to the module with the longest prefix it falls under; anything else falls through
 * to the host app (lib/http/modules.ts). The modules share one CA cache, one outage log (a database
 * outage is logged once, not per module), `logError` and the metrics sink their services report to;
 * `close()` closes every module, then what the composition root made for them.
 */
import type { RequestHandler } from 'express';
import { mountRestApi, type RestApiPorts } from './api/mount';
import type { RouteDefinition } from './api/route-types';
import { startIntentSweep } from './ca/issuance/interrupted';
import { CaCache } from './cache/ca-cache';
import { servingAllowedHosts, type RefuseHost } from './http/allowed-hosts';
import { serveModules, type MountedModule, type SharedContext } from './http/modules';
import { sendJson, writeJsonHead } from './http/send';
import { OutageLog } from './http/outage';
import { withAccessLog } from './http/access-log';
import { OptionsError, type ResolvedOptions } from './options';
import {
  hasAcmeNonces,
  hasAcmeStore,
  hasJobStore,
  NO_METRICS,
  type ChallengeValidator,
  type MetricsExposition,
  type MetricsSink,
  type SecretBox,
  type WebhookSender,
} from './ports';
import { mountAcme } from './acme/mount';
import { malformed, PROBLEM_CONTENT_TYPE } from './acme/problems';
import { mountRevocationEndpoints } from './revocation-endpoints/mount';
import { mountMetrics } from './metrics/mount';
import { mountEst } from './est/mount';
import type { EstServices } from './est/route-types';
import { EST_REALM } from './est/framing';
import { CrlPublisher } from './ca/crls';
import { ScepRas } from './scep/ra';
import { mountScep } from './scep/mount';
import type { ScepServices } from './scep/route-types';
import { EndpointRateLimits } from './enrolment/rate-limit';
import type { ChallengeWebhookPorts } from './enrolment/challenge-webhook';
import { basicAuthenticator } from './http/basic-auth';

export type { CaApiRouterOptions } from './options';

export interface CaApiRouter extends RequestHandler {
  /** Stop what the router started (bcrypt threads, the order runner). Idempotent. */
  close(): Promise<void>;
  /** The validated options, for introspection and tests. */
  readonly options: ResolvedOptions;
}

/** @internal For tests of the infrastructure. */
export interface CreateCaApiRouterInternals {
  /** Replace the route table (tests of the infrastructure; the other endpoints keep their handlers). */
  routes?: readonly RouteDefinition[];
}

/** Something the router owns and closes in `close()`, after the modules (and so the order runner) have stopped. */
export interface Closable {
  close(): Promise<void> | void;
}

/**
 * Every port the API needs, chosen by the composition root (lib/wiring.ts, behind the package entry, fills
 * in the default adapters for what the host did not bring).
 */
export interface ApiPorts extends Omit<RestApiPorts, 'cas'> {
  /** Closed by `close()` after the modules (the defaults' bcrypt threads and user cache). */
  owned: readonly Closable[];
  /** Checks ACME challenges; required when ACME is enabled. */
  acmeValidator?: ChallengeValidator | null;
  /** Opens the sealed MAC keys of ACME external account bindings. */
  acmeSecrets?: SecretBox | null;
  /** What the metrics endpoint serves, when this router serves it (`metrics.enabled`); closed through `owned`. */
  metricsExposition?: MetricsExposition | null;
  /** Where the modules' services report: the exposition's sink, a metrics router's, or none. */
  metricsSink?: MetricsSink;
  /** Sends the enrolment endpoints' challenge webhooks, signed (docs/guides/scep.md); absent: such challenges are refused. */
  webhookSender?: WebhookSender | null;
}

/** A request for a host the router does not serve: 400 JSON, as every error of the REST API (D11). */
const refuseHostJson: RefuseHost = (_req, res, detail) => sendJson(res, 400, { detail });

/** The same, as an RFC 8555 §6.7 problem document. */
const refuseHostAcme: RefuseHost = (_req, res, detail) => {
  writeJsonHead(res, 400);
  res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.end(JSON.stringify(malformed(detail).body()));
};

/** The modules the options ask for, over one CA cache. */
function mountModules(
  resolved: ResolvedOptions,
  ports: ApiPorts,
  cas: CaCache,
  shared: SharedContext,
  internals: CreateCaApiRouterInternals,
): MountedModule[] {
  const { store, keyBackends } = ports;
  const mounted: MountedModule[] = [];
  // Each module's requests in the access log (docs/operations/logs.md), named by the way in.
  const { logger, accessLog } = resolved;
  const add = (protocol: string, module: MountedModule) => {
    // Hosts first (allowedHosts, docs/reference/options.md), inside the access log, which records refusals too.
    const m = servingAllowedHosts(module, resolved.allowedHosts, protocol === 'acme' ? refuseHostAcme : refuseHostJson);
    mounted.push(accessLog && logger ? withAccessLog(m, protocol, logger) : m);
  };
  if (resolved.enableRestApi) add('rest', mountRestApi(resolved, { ...ports, cas }, shared, internals.routes));
  if (resolved.serveRevocation) {
    const settings = { prefix: `/${resolved.urlPath}`, ocspSigning: resolved.ocspSigning, profiles: resolved.effectiveProfiles };
    add('revocation', mountRevocationEndpoints(settings, { store, keyBackends, cas }, shared));
  }
  if (resolved.acme.enabled) {
    if (!hasAcmeStore(store) || !hasAcmeNonces(store) || !hasJobStore(store) || !ports.acmeValidator) {
      throw new OptionsError(
        '`acme.enabled` needs a store with the ACME and background-job capabilities (the knex store has them) and a challenge validator',
      );
    }
    const settings = { prefix: `/${resolved.urlPath}acme/`, options: resolved.acme, profiles: resolved.effectiveProfiles };
    const acmePorts = {
      store,
      acme: store.acme,
      jobs: store.jobs,
      nonces: store,
      cas,
      keyBackends,
      validator: ports.acmeValidator,
      verifier: ports.signatureVerifier ?? null,
      secrets: ports.acmeSecrets ?? null,
    };
    add('acme', mountAcme(settings, acmePorts, shared));
  }
  if (resolved.est.enabled) add('est', mountEst(estServices(resolved, ports, cas, shared), shared));
  if (resolved.scep.enabled) add('scep', mountScep(`/${resolved.urlPath}scep/`, scepServices(resolved, ports, cas, shared), shared));
  if (resolved.metrics.enabled && ports.metricsExposition) add('metrics', mountMetrics(resolved.metrics, ports.metricsExposition, shared));
  return mounted;
}

/** What EST's handlers use: the REST API's users and permissions, the router's profiles and CA cache. */
function estServices(resolved: ResolvedOptions, ports: ApiPorts, cas: CaCache, shared: SharedContext): EstServices {
  const { store, keyBackends } = ports;
  return {
    store,
    cas,
    endpoints: resolved.est.endpoints,
    authenticate: basicAuthenticator(ports.authenticator, EST_REALM, ports.loginLimiter, shared.metrics),
    permissions: ports.permissions,
    signing: { keyBackends, profiles: resolved.effectiveProfiles, defaultExpiresMs: resolved.defaultExpiresMs, intents: store },
    defaultProfile: resolved.defaultProfile,
    verifier: ports.signatureVerifier ?? null,
    defaultCa: resolved.defaultCa ?? undefined,
    rateLimits: new EndpointRateLimits(),
    bodyLimit: resolved.est.bodyLimit,
    serverKeygen: resolved.est.serverKeygen,
    retryAfterSeconds: resolved.est.retryAfterSeconds,
    clientCertificateHeader: resolved.est.clientCertificateHeader,
    challengeWebhooks: challengeWebhookPorts(resolved, ports),
  };
}

/** What SCEP's handlers use: the router's profiles and CA cache, each CA's registration authority, its CRLs. */
function scepServices(resolved: ResolvedOptions, ports: ApiPorts, cas: CaCache, shared: SharedContext): ScepServices {
  const { store, keyBackends } = ports;
  return {
    store,
    cas,
    endpoints: resolved.scep.endpoints,
    ras: new ScepRas(store, keyBackends, resolved.effectiveProfiles),
    crls: new CrlPublisher(store, keyBackends, { metrics: shared.metrics }),
    signing: { keyBackends, profiles: resolved.effectiveProfiles, defaultExpiresMs: resolved.defaultExpiresMs, intents: store },
    defaultProfile: resolved.defaultProfile,
    verifier: ports.signatureVerifier ?? null,
    defaultCa: resolved.defaultCa ?? undefined,
    rateLimits: new EndpointRateLimits(),
    legacyAlgorithms: resolved.scep.legacyAlgorithms,
    bodyLimit: resolved.scep.bodyLimit,
    challengeWebhooks: challengeWebhookPorts(resolved, ports),
  };
}

/** The enrolment challenge webhooks' sender, and where their refusals are logged: the logger, else the error log. */
function challengeWebhookPorts(resolved: ResolvedOptions, ports: ApiPorts): ChallengeWebhookPorts {
  const logger = resolved.logger ?? { warn: (message: string, fields?: Record<string, unknown>) => resolved.logError(message, fields) };
  return { sender: ports.webhookSender ?? null, logger };
}

/**
 * The router over validated options and chosen ports (`ports` is null when the API is disabled: the
 * router then only calls `next()`). Hosts call `createCaApiRouter` (the package entry), which
 * validates the options and wires the default adapters; this function imports no adapter.
 */
export function buildCaApiRouter(
  resolved: ResolvedOptions,
  ports: ApiPorts | null,
  internals: CreateCaApiRouterInternals = {},
): CaApiRouter {
  const metrics = ports?.metricsSink ?? NO_METRICS;
  const shared: SharedContext = {
    logError: resolved.logError,
    // A client that hangs up is no error of ours: the logger's warning, else the error log without a stack.
    logNotice: resolved.logger ? (message, fields) => resolved.logger?.warn(message, fields) : resolved.logError,
    outages: new OutageLog(resolved.logError, Date.now, metrics),
    metrics,
  };
  const cas = ports ? new CaCache(ports.store) : null;
  const modules = ports && cas ? mountModules(resolved, ports, cas, shared, internals) : [];
  // Every recorded intent ends issued or failed, whichever way in left it (lib/ca/issuance/interrupted.ts).
  const intents = ports ? startIntentSweep(ports.store, resolved.issuanceLeaseMs, resolved.logError) : null;
  const router = serveModules(modules, async () => {
    intents?.close();
    for (const resource of ports?.owned ?? []) await resource.close();
    cas?.close();
  }) as CaApiRouter;
  Object.defineProperty(router, 'options', { value: resolved, enumerable: true });
  return router;
}
