/**
 * The one place where a failed request is answered, for every way in:
 *   - an `HttpError` (or what the module maps to one, e.g. the REST API's lib/ca errors) → its JSON answer;
 *   - the store's outage error → 503 with `Retry-After` (docs/operations/hostile-clients-and-outages.md "Outages", lib/http/outage.ts);
 *   - a client that hung up before its body arrived → noted as a warning with its address, not answered;
 *   - a key backend that cannot be reached (an HSM token removed) → 503 with `Retry-After`, logged;
 *   - anything else → logged and answered 500 without details. The log names the method and path
 *     only, never the request, whose headers may carry credentials.
 * If the answer had begun (a streamed list), the status line is gone: the connection is cut.
 */
import type { Request, Response } from 'express';
import { KeyBackendUnavailableError } from '../ports';
import { isRequestAborted, noteClientGone, type LogNotice } from './client-gone';
import { HttpError, internalError } from './http-errors';
import { RETRY_AFTER_SECONDS, type OutageLog } from './outage';
import { sendError } from './send';

export type LogError = (message: string, error: unknown) => void;

export interface ErrorCatch {
  outages: OutageLog;
  logError: LogError;
  /** Where a client that hung up mid-request is noted (lib/http/client-gone.ts); default `logError` with fields only. */
  logNotice?: LogNotice;
  /** The module's own mapping of errors to answers (null: not one of its errors). */
  toHttpError?: (error: unknown) => HttpError | null;
  /** How the module writes an error (default: JSON `{"detail": …}`); EST answers in plain text. */
  send?: (res: Response, error: HttpError) => void;
}

export function answerFailure(how: ErrorCatch, req: Request, res: Response, error: unknown): void {
  if (isRequestAborted(error)) {
    // The client's doing, not ours: noted once with its address, no stack, and no one to answer.
    noteClientGone(how.logNotice ?? how.logError, req, error);
    res.destroy();
    return;
  }
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
