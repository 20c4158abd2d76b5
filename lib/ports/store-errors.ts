/**
 * The store's typed errors (lib/ports/index.ts re-exports them, so adapters and hosts import them from there
 * like every other port; they live here only to keep ports.ts short).
 */

export type StoreEntity = 'ca' | 'certificate' | 'order' | 'user' | 'enrolment_endpoint';

/** A unique constraint refused a write (duplicate CA name or serial, certificate serial, username). */
export class StoreConflictError extends Error {
  readonly code = 'conflict' as const;
  constructor(
    message: string,
    readonly entity: StoreEntity,
    /** The column (or columns, comma-separated) that must be unique, e.g. `serial`, `name`. */
    readonly field: string,
  ) {
    super(message);
    this.name = 'StoreConflictError';
  }
}

/** A row addressed by id does not exist (update/revoke/mark of a vanished row). */
export class StoreNotFoundError extends Error {
  readonly code = 'not-found' as const;
  constructor(
    readonly entity: StoreEntity,
    readonly id: number,
  ) {
    super(`${entity} ${id} does not exist`);
    this.name = 'StoreNotFoundError';
  }
}

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
   * with `Retry-After` either way (docs/operations/hostile-clients-and-outages.md "Outages").
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
