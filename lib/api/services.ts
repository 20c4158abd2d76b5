/**
 * What the REST API's handlers work with (`ApiServices`, lib/api/route-types.ts), built once per
 * mount: read caches in front of the store (docs/DESIGN.md "Caches on the request path"), the order
 * runner started, and how to stop it all.
 */
import { CertificateTexts } from './certificate-texts';
import type { CaCache } from '../cache/ca-cache';
import type { LogError } from '../http/error-catch';
import {
  NO_METRICS,
  type Authenticator,
  type KeyBackend,
  type LoginAttemptLimiter,
  type MetricsSink,
  type OrderRunner,
  type PermissionChecker,
  type SignatureVerifier,
  type Store,
} from '../ports';
import { CertificateCache } from './certificate-cache';
import { OrderCache } from './order-cache';
import type { ResolvedRestApiOptions } from './options';
import type { ApiServices } from './route-types';

/** Every port the REST API needs, chosen by the composition root (lib/wiring.ts fills in the defaults). */
export interface RestApiPorts {
  store: Store;
  keyBackends: Readonly<Record<string, KeyBackend>>;
  authenticator: Authenticator;
  permissions: PermissionChecker;
  /** Brute-force protection of Basic auth; null: none. */
  loginLimiter: LoginAttemptLimiter | null;
  /** Started with the API and stopped by `close()`; null = orders are processed elsewhere. */
  orderRunner: OrderRunner | null;
  /** Checks the CSR self-signatures of sign requests off the event loop; null: libuv's thread pool. */
  signatureVerifier?: SignatureVerifier | null;
  /** CA reads, shared with the other modules of the router (lib/cache/ca-cache.ts); closed by whoever made it. */
  cas: CaCache;
}

export interface RunningServices {
  services: ApiServices;
  /** Stop the order runner (after it has started), then drop the caches. */
  close(): Promise<void>;
}

export function startServices(
  settings: ResolvedRestApiOptions,
  ports: RestApiPorts,
  logError: LogError,
  metrics: MetricsSink = NO_METRICS,
): RunningServices {
  const { store, orderRunner } = ports;
  const certificates = new CertificateCache(store);
  // Finished orders from memory for polling clients; fed by the runner when it announces them.
  const orders = new OrderCache(store, orderRunner);
  const runnerStarted = orderRunner
    ? orderRunner.start().catch((e: unknown) => logError('express-ca-api: order runner failed to start', e))
    : null;
  const services: ApiServices = {
    store,
    cas: ports.cas,
    certificates,
    certificateTexts: new CertificateTexts(store),
    orders,
    orderRunner,
    permissions: ports.permissions,
    keyBackends: ports.keyBackends,
    profiles: settings.effectiveProfiles,
    defaultProfile: settings.defaultProfile,
    defaultExpiresMs: settings.defaultExpiresMs,
    orderWaitMs: settings.orderWaitMs,
    signInRequest: settings.signInRequest,
    signatureVerifier: ports.signatureVerifier ?? null,
    metrics,
  };
  return {
    services,
    async close(): Promise<void> {
      if (runnerStarted && orderRunner) {
        await runnerStarted;
        await orderRunner.stop();
      }
      certificates.close();
      orders.close();
    },
  };
}
