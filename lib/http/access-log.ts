/**
 * The access log (docs/operations/logs.md): one line per request a module answered — method,
 * path, status, duration, user, address, protocol — written when the answer is finished (or the
 * client went away). Never the query string (search terms are the caller's business), never a
 * header, never a body: what could hold a credential is not read at all. Requests a module hands to
 * the host app (`next()`) are the host's to log.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../ports';
import type { MountedModule } from './modules';

/**
 * Where a module names who the request authenticated as, for this log: `res.locals[ACCESS_USER]`
 * (the REST API's username; ACME's account).
 */
export const ACCESS_USER = 'caApiUser';

export function withAccessLog(module: MountedModule, protocol: string, logger: Logger): MountedModule {
  return {
    prefix: module.prefix,
    close: () => module.close(),
    handle(req: Request, res: Response, next: NextFunction): void {
      const start = process.hrtime.bigint();
      let handedOn = false;
      let logged = false;
      const log = (): void => {
        if (logged || handedOn) return;
        logged = true;
        const user: unknown = res.locals[ACCESS_USER];
        logger.info('request', {
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.headersSent ? res.statusCode : null,
          duration_ms: Number(process.hrtime.bigint() - start) / 1e6,
          user: typeof user === 'string' || typeof user === 'number' ? user : null,
          address: req.ip ?? null,
          protocol,
          ...(res.writableFinished ? {} : { aborted: true }),
        });
      };
      res.once('finish', log);
      res.once('close', log);
      module.handle(req, res, (err?: unknown) => {
        handedOn = true;
        next(err);
      });
    },
  };
}
