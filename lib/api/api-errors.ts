/**
 * The REST API's own error answers: the 401 of Basic authentication (docs/reference/differences.md D5) and how what the
 * lib/ca rules and the lib/x509 engine refuse becomes an HTTP answer (docs/COMPATIBILITY.md §1.4).
 * The error values themselves are the shared kit's (lib/http/http-errors.ts).
 */
import { StoreNotFoundError } from '../ports';
import { CaError } from '../ca/errors';
import { X509Error, type ValidationIssue } from '../x509/errors';
import { badRequest, HttpError, notFound, unprocessable, type Loc, type ValidationItem } from '../http/http-errors';

/** Realm announced on every 401 (D5). */
export const BASIC_REALM = 'django-ca';

export const unauthorized = (): HttpError => new HttpError(401, 'Unauthorized', { 'WWW-Authenticate': `Basic realm="${BASIC_REALM}"` });

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
