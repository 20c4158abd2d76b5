/**
 * A client that hangs up before its request body has arrived (an abandoned upload: Node's
 * `ECONNRESET` "aborted" on the request). That is the client's doing, not a failure of the server:
 * it is noted once per request, as a warning with the client's address and no stack trace, and
 * nothing is answered (there is no one to read it). Every way in reads bodies through
 * lib/http/body.ts, which turns the abort into a `ClientGoneError`; the error catches note it.
 */
import type { Request } from 'express';

export class ClientGoneError extends Error {
  /** `address`: the client's, taken while its socket was still open (`req.ip`). */
  constructor(readonly address: string | null = null) {
    super('The client closed the connection before its request body arrived.');
    this.name = 'ClientGoneError';
  }
}

/** Where such a warning goes: the router's logger at `warn`, else its error log (a message and fields, no stack). */
export type LogNotice = (message: string, fields: Record<string, unknown>) => void;

/** Whether `error` is the request stream's own abort (what `req` emits when the client goes away mid-body). */
export function isRequestAborted(error: unknown): boolean {
  if (error instanceof ClientGoneError) return true;
  const e = error as { code?: unknown; message?: unknown } | null;
  return typeof e === 'object' && e !== null && e.code === 'ECONNRESET' && e.message === 'aborted';
}

/** Note once that the client behind `req` left mid-request (`error`: what reading its body threw). */
export function noteClientGone(log: LogNotice, req: Request, error: unknown): void {
  const address = error instanceof ClientGoneError && error.address ? error.address : (req.ip ?? req.socket?.remoteAddress ?? null);
  log('express-ca-api: the client closed the connection before its request was read', { method: req.method, path: req.path, address });
}
