/**
 * The metrics endpoint as a module (docs/DESIGN.md "Modules (ways in)", docs/operations/metrics.md): one path,
 * `GET` (and `HEAD`) only, answered with the exposition's text once the access rule (access.ts)
 * let the request through. Mounted beside the other modules by `createCaApiRouter`, or alone by
 * `createMetricsRouter` (router.ts). Any other path under it is the host app's; a refused or failed
 * request is answered by the shared kit (JSON errors; 503 with `Retry-After` in an outage).
 */
import type { NextFunction, Request, Response } from 'express';
import { answerFailure } from '../http/error-catch';
import { methodNotAllowed } from '../http/http-errors';
import type { MountedModule, SharedContext } from '../http/modules';
import { sendContent } from '../http/send';
import type { MetricsExposition } from '../ports';
import { metricsAccess } from './access';
import type { ResolvedMetricsEndpoint } from './options';

export function mountMetrics(settings: ResolvedMetricsEndpoint, exposition: MetricsExposition, shared: SharedContext): MountedModule {
  const { path } = settings;
  const mayRead = metricsAccess(settings);

  async function serve(req: Request, res: Response): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(['GET', 'HEAD']);
    const refused = await mayRead(req);
    if (refused) throw refused;
    // Scrapes are answered as they are: a cache in between would show stale counts.
    sendContent(res, exposition.contentType, await exposition.render(), { 'Cache-Control': 'no-store' });
  }

  return {
    prefix: `${path}/`,
    handle(req: Request, res: Response, next: NextFunction): void {
      if (req.path !== path) return next();
      serve(req, res).catch((error: unknown) => answerFailure(shared, req, res, error));
    },
    close: async () => {},
  };
}
