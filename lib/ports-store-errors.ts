/**
 * A store error beside StoreConflictError and StoreNotFoundError (lib/ports.ts re-exports it, so
 * adapters and hosts import it from there like the others; it lives here only to keep ports.ts short).
 */

/**
 * The database failed the operation rather than refusing it by a rule: the connection broke, the
 * transaction was rolled back (deadlock, serialization failure), or the database reported any other
 * error. The transaction it happened in is unusable; the same work may succeed when retried. The
 * driver's error is `cause`. Stores throw this instead of their driver's errors, so that callers (the
 * order runner: retry the order, not fail it) need not know the database's error codes.
 */
export class StoreUnavailableError extends Error {
  readonly code = 'unavailable' as const;
  /**
   * True when the database could not be reached at all (connection refused, lost or timed out, the
   * server shutting down or starting up): an outage, not a statement this work makes fail. The order
   * runner does not count such a failure against an order and backs off instead; the API answers 503
   * with `Retry-After` either way (README "Outages").
   */
  readonly connectionLost: boolean;
  constructor(message: string, options?: { cause?: unknown; connectionLost?: boolean }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
    this.connectionLost = options?.connectionLost ?? false;
  }
}

/** Whether `error` says the database could not be reached (see `StoreUnavailableError.connectionLost`). */
export function isConnectionLost(error: unknown): boolean {
  return error instanceof StoreUnavailableError && error.connectionLost;
}
