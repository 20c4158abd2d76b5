/**
 * The revocation endpoints as a module (docs/DESIGN.md "Modules (ways in)"): the CA certificates, CRLs
 * and OCSP that the URLs in issued certificates point at, without authentication, under `/{urlPath}`
 * (docs/guides/revocation.md). Mounted beside the REST API by `createCaApiRouter`, or alone
 * by `createRevocationRouter`.
 *
 * A path in no entry of the route table (lib/revocation-endpoints/routes.ts) is the host app's
 * (`next()`): these endpoints share their prefix with whatever else the host serves. Errors are JSON
 * (unknown CA → 404, bad `encoding` → 400, wrong method → 405 with `Allow`); a database outage is a
 * 503 with `Retry-After` — the shared kit's error catch (lib/http/error-catch.ts).
 */
import type { NextFunction, Request, Response } from 'express';
import { CrlPublisher } from '../ca/crls';
import { OcspResponder } from '../ca/ocsp';
import type { Profiles } from '../ca/profiles';
import { CaCache } from '../cache/ca-cache';
import { subscribeIfSupported } from '../cache/record-cache';
import { answerFailure } from '../http/error-catch';
import type { MountedModule, SharedContext } from '../http/modules';
import { compileRoute, matchingRoutes, routeForMethod } from '../http/path-matcher';
import type { KeyBackend, RevocationStore, Store } from '../ports';
import type { OcspSigning } from './options';
import { REVOCATION_PATH_PARAMS } from './path-params';
import type { RevocationRoute, RevocationServices } from './route-types';
import { REVOCATION_ROUTES } from './routes';

export interface RevocationSettings {
  /** `/${urlPath}`, relative to where the router is mounted. */
  prefix: string;
  ocspSigning: OcspSigning;
  profiles: Profiles;
}

export interface RevocationPorts {
  store: Store & RevocationStore;
  keyBackends: Readonly<Record<string, KeyBackend>>;
  /** A CA cache shared with the other modules of the router; when absent the module makes (and closes) its own. */
  cas?: CaCache;
}

export function mountRevocationEndpoints(
  settings: RevocationSettings,
  ports: RevocationPorts,
  shared: SharedContext,
  routeTable: readonly RevocationRoute[] = REVOCATION_ROUTES,
): MountedModule {
  const { store, keyBackends } = ports;
  const routes = routeTable.map((route) => compileRoute(route, REVOCATION_PATH_PARAMS));
  const ownCas = ports.cas ? null : new CaCache(store);
  const services: RevocationServices = {
    cas: ports.cas ?? (ownCas as CaCache),
    crls: new CrlPublisher(store, keyBackends, { metrics: shared.metrics }),
    ocsp: new OcspResponder(store, keyBackends, settings.profiles, {
      signWith: settings.ocspSigning,
      logError: shared.logError,
      metrics: shared.metrics,
    }),
  };
  // A revocation through this process: CRLs and OCSP answers re-check the store's revocation version at once.
  const seen = (): void => {
    services.crls.revocationSeen();
    services.ocsp.revocationSeen();
  };
  const unsubscribe = [store.onCertificateChanged, store.onCaChanged].flatMap((subscribe) => {
    const stop = subscribeIfSupported(subscribe.bind(store), seen);
    return stop ? [stop] : [];
  });
  const prefix = settings.prefix;

  return {
    prefix,
    handle(req: Request, res: Response, next: NextFunction): void {
      if (!req.path.startsWith(prefix)) return next();
      const matches = matchingRoutes(routes, `/${req.path.slice(prefix.length)}`);
      if (matches.length === 0) return next();
      (async () => {
        const { compiled, params } = routeForMethod(matches, req.method);
        await compiled.route.handler({ req, res, params, services });
      })().catch((error: unknown) => answerFailure(shared, req, res, error));
    },
    async close(): Promise<void> {
      for (const stop of unsubscribe) stop();
      ownCas?.close();
    },
  };
}
