/**
 * Errors of the rules layer (lib/ca) as HTTP errors, for the endpoint handlers.
 *
 * `CaError` codes say what went wrong independently of HTTP; here they become statuses: a missing
 * object is a 404, everything else the rules refuse is a 400 with the operator-readable message.
 */
import { CaError } from '../ca/errors';
import { badRequest, HttpError, notFound } from './http-errors';

export function caErrorToHttp(error: unknown): unknown {
  if (!(error instanceof CaError)) return error;
  return error.code === 'not-found' ? notFound() : badRequest(error.message);
}

/** Run `fn`; a `CaError` it throws is rethrown as the matching `HttpError`. */
export async function withCaErrors<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw caErrorToHttp(e);
  }
}

export { HttpError };
