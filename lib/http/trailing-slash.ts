/**
 * A path that names a route only with a trailing slash is redirected to it, as upstream does
 * (Django's APPEND_SLASH): 301 for GET, 308 for every other method, which keeps the method and the
 * body (RFC 9110 §15.4.9), so that a POST is not lost. The query string goes along.
 */
import type { Request, Response } from 'express';
import { sendJson } from './send';

/** The query part of the request as the client sent it (`?a=1`), or `''`. */
export function queryOf(req: Request): string {
  const at = req.originalUrl.indexOf('?');
  return at === -1 ? '' : req.originalUrl.slice(at);
}

/** Redirect to `location` (an absolute path ending in `/`, without query): JSON body, query kept. */
export function redirectToSlash(req: Request, res: Response, location: string): void {
  sendJson(res, req.method === 'GET' ? 301 : 308, { detail: 'Moved Permanently' }, { Location: `${location}${queryOf(req)}` });
}
