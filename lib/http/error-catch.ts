/**
 * The one place where a failed request is answered, for every way in:
 *   - an `HttpError` (or what the module maps to one, e.g. the REST API's lib/ca errors) → its JSON answer;
 *   - the store's outage error → 503 with `Retry-After` (README "Outages", lib/http/outage.ts);
 *   - a key backend that cannot be reached (an HSM token removed) → 503 with `Retry-After`, logged;
 *   - anything else → logged and answered 500 without details. The log names the method and path
 *     only, never the request, whose headers may carry credentials.
 * If the answer had begun (a streamed list), the status line is gone: the connection is cut.
 */
import type { Request, Response } from 'express';
import { KeyBackendUnavailableError } from '../ports';
import { HttpError, internalError } from './http-errors';
import { RETRY_AFTER_SECONDS, type OutageLog } from './outage';
import { sendError } from './send';

export type LogError = (message: string, error: unknown) => void;

export interface ErrorCatch {
  outages: OutageLog;
  logError: LogError;
  /** The module's own mapping of errors to answers (null: not one of its errors). */
  toHttpError?: (error: unknown) => HttpError | null;
  /** How the module writes an error (default: JSON `{"detail": …}`); EST answers in plain text. */
  send?: (res: Response, error: HttpError) => void;
}

export function answerFailure(how: ErrorCatch, req: Request, res: Response, error: unknown): void {
  let http = error instanceof HttpError ? error : (how.toHttpError?.(error) ?? how.outages.toHttpError(error));
  if (!http && error instanceof KeyBackendUnavailableError) {
    // The request is fine and may succeed later: say so (the message names the backend and the cause, never a PIN).
    how.logError(`express-ca-api: ${req.method} ${req.path}: ${error.message}`, error);
    http = new HttpError(503, `${error.message} Retry later.`, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
  }
  if (!http) {
    how.logError(`express-ca-api: ${req.method} ${req.path} failed`, error);
    http = internalError();
  }
  if (res.headersSent) res.destroy();
  else (how.send ?? sendError)(res, http);
}
