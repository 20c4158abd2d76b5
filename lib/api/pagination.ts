/**
 * Optional keyset pagination of list endpoints (docs/reference/differences.md D14).
 *
 * Without `limit` a list is returned whole, as upstream. With it, at most `limit` items are returned
 * and, when more follow, a `Link: <...>; rel="next"` header (RFC 8288) points at the next page; the
 * body stays a plain array so that clients of the original keep working. The cursor is opaque to
 * clients: base64url of the last id returned, so pages stay stable while rows are added.
 */
import type { Request } from 'express';
import { unprocessable } from '../http/http-errors';

export interface PageRequest {
  limit?: number;
  /** Return rows with an id greater than this. */
  afterId?: number;
}

export function encodeCursor(lastId: number): string {
  return Buffer.from(String(lastId), 'utf8').toString('base64url');
}

/** The page asked for by the validated `limit`/`cursor` query parameters. */
export function pageRequest(query: Record<string, unknown>): PageRequest {
  const page: PageRequest = {};
  if (typeof query.limit === 'number') page.limit = query.limit;
  if (typeof query.cursor === 'string') {
    const text = Buffer.from(query.cursor, 'base64url').toString('utf8');
    if (!/^\d{1,15}$/.test(text)) {
      throw unprocessable([
        { type: 'value_error', loc: ['query', 'cursor'], msg: 'Value error, invalid cursor', ctx: { error: 'invalid cursor' } },
      ]);
    }
    page.afterId = Number(text);
  }
  return page;
}

/** The store query of a page: one row more than `limit`, to know whether a next page exists. */
export function pageQuery(page: PageRequest): { afterId?: number; limit?: number } {
  return {
    ...(page.afterId !== undefined ? { afterId: page.afterId } : {}),
    ...(page.limit !== undefined ? { limit: page.limit + 1 } : {}),
  };
}

/**
 * Cut `rows` (fetched with one row more than `limit`, to know whether a next page exists) to the page
 * and compute the `Link` header for the next one.
 */
export function paginate<T extends { id: number }>(
  rows: T[],
  page: PageRequest,
  req: Request,
): { items: T[]; headers: Record<string, string> } {
  if (page.limit === undefined || rows.length <= page.limit) return { items: rows, headers: {} };
  const items = rows.slice(0, page.limit);
  const next = nextPageUrl(req, encodeCursor(items[items.length - 1].id));
  return { items, headers: { Link: `<${next}>; rel="next"` } };
}

/** The request's own URL (path and query as the client sent them) with `cursor` replaced. */
function nextPageUrl(req: Request, cursor: string): string {
  const url = req.originalUrl;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const params = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
  params.delete('cursor');
  params.append('cursor', cursor);
  return `${path}?${params.toString()}`;
}
