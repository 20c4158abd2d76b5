/**
 * Error answers as values, for every way in.
 *
 * Handlers and the modules' request pipelines throw `HttpError`s; one place (the error catch of
 * lib/http/error-catch.ts) turns them into `{"detail": ...}` JSON. Bodies follow
 * docs/COMPATIBILITY.md §1.4: a string detail for 400/401/403/404/405/413/500 and a list of
 * `{type, loc, msg}` items for 422. How the REST API maps the errors of lib/ca and lib/x509 onto
 * these is its own business (lib/api/api-errors.ts).
 */

export type Loc = (string | number)[];

/** One 422 item (django-ninja shape; `ctx` only when there is context to give). */
export interface ValidationItem {
  type: string;
  loc: Loc;
  msg: string;
  ctx?: Record<string, unknown>;
}

export class HttpError extends Error {
  readonly status: number;
  readonly detail: string | ValidationItem[];
  readonly headers: Record<string, string>;

  constructor(status: number, detail: string | ValidationItem[], headers: Record<string, string> = {}) {
    super(typeof detail === 'string' ? detail : `${detail.length} validation error(s)`);
    this.name = 'HttpError';
    this.status = status;
    this.detail = detail;
    this.headers = headers;
  }

  get body(): { detail: string | ValidationItem[] } {
    return { detail: this.detail };
  }
}

export const forbidden = (): HttpError => new HttpError(403, 'Forbidden');
export const notFound = (): HttpError => new HttpError(404, 'Not Found');
export const badRequest = (message: string): HttpError => new HttpError(400, message);
/** The original's detail, with what it expected: clients match on the prefix, people need the rest. */
export const cannotParseBody = (): HttpError => new HttpError(400, 'Cannot parse request body: expected a JSON document.');
/** Same prefix as `cannotParseBody`: to a client of the original, this body is one it cannot parse either. */
export const jsonTooDeep = (max: number): HttpError =>
  new HttpError(400, `Cannot parse request body: JSON nested deeper than ${max} levels.`);
export const payloadTooLarge = (limit: number): HttpError => new HttpError(413, `Request body is larger than ${limit} bytes`);
export const methodNotAllowed = (allowed: string[]): HttpError => new HttpError(405, 'Method Not Allowed', { Allow: allowed.join(', ') });
export const internalError = (): HttpError => new HttpError(500, 'Internal Server Error');

export function unprocessable(items: ValidationItem[]): HttpError {
  return new HttpError(422, items);
}
