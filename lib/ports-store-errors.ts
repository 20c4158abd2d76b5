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
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
