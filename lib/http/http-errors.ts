/**
 * The API's error responses as values.
 *
 * Handlers and the router throw `HttpError`s; one place (the router) turns them into
 * `{"detail": ...}` JSON. Bodies follow docs/COMPATIBILITY.md §1.4: a string detail for 400/401/403/404/405/
 * 413/500 and a list of `{type, loc, msg}` items for 422.
 */
import { StoreNotFoundError } from '../ports';
import { CaError } from '../ca/errors';
import { X509Error, type ValidationIssue } from '../x509/errors';

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

/** Realm announced on every 401 (D5). */
export const BASIC_REALM = 'django-ca';

export const unauthorized = (): HttpError => new HttpError(401, 'Unauthorized', { 'WWW-Authenticate': `Basic realm="${BASIC_REALM}"` });
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

/**
 * A validation failure of the x509 engine (loc relative to the validated value) as a 422, with `loc`
 * prefixed by where that value sits in the request, e.g. `['body', 'data', 'subject']`.
 */
export function fromValidationIssues(prefix: Loc, issues: ValidationIssue[]): HttpError {
  return unprocessable(
    issues.map((i) => {
      const msg = i.type === 'value_error' && !i.msg.startsWith('Value error, ') ? `Value error, ${i.msg}` : i.msg;
      const item: ValidationItem = { type: i.type, loc: [...prefix, ...i.loc], msg };
      if (i.type === 'value_error') item.ctx = { error: i.msg };
      return item;
    }),
  );
}

/**
 * Map anything a handler threw to an `HttpError`, or null when it is unexpected (→ logged 500).
 * Engine validation errors need a `prefix` to say where in the request the value came from.
 */
export function toHttpError(error: unknown, prefix: Loc = ['body']): HttpError | null {
  if (error instanceof HttpError) return error;
  if (error instanceof StoreNotFoundError) return notFound(); // the row vanished under the request
  // The rules layer says what went wrong independently of HTTP: a missing (or invisible) object is a
  // 404 that tells nothing more; everything else it refuses is a 400 in the API's wording.
  if (error instanceof CaError) return error.code === 'not-found' ? notFound() : badRequest(error.apiDetail ?? error.message);
  if (error instanceof X509Error) {
    if (error.code === 'validation') return fromValidationIssues(prefix, error.issues);
    if (error.code === 'too-large') return new HttpError(413, error.message);
    return badRequest(error.message);
  }
  return null;
}
