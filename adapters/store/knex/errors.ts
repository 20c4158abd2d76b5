/**
 * Database errors → the store's typed errors (lib/ports), so that nothing outside this adapter reads
 * driver errors. Both `pg` and PGlite report PostgreSQL's five-character SQLSTATE in `code` and the
 * violated constraint's name in `constraint`:
 * - a unique violation (23505) is a StoreConflictError naming the entity and field;
 * - any other SQLSTATE is a StoreUnavailableError: the database failed the statement, the transaction
 *   is unusable, and the order runner retries the order instead of failing it (docs/DESIGN.md "Orders").
 * - a database that cannot be reached — a socket error of the driver (connection refused, reset, timed
 *   out), `pg`'s "Connection terminated", knex's pool timeout, or a SQLSTATE of class 08 (connection
 *   exception) or 57P01–57P03 (the server shutting down, crashed, starting up) — is a
 *   StoreUnavailableError with `connectionLost`: an outage, which the API answers with 503 and the
 *   order runner waits out (docs/operations/hostile-clients-and-outages.md "Outages").
 * Anything else (the rules' own errors) passes through unchanged.
 */
import { StoreConflictError, StoreUnavailableError, type StoreEntity } from '../../../lib/ports';

const UNIQUE_VIOLATION = '23505';

/** Five characters of digits and upper-case letters: a PostgreSQL SQLSTATE. */
const SQLSTATE = /^[0-9A-Z]{5}$/;

/** Constraint name (as knex names them: table_columns_unique) → what it means to a caller. */
const UNIQUE_CONSTRAINTS: Record<string, { entity: StoreEntity; field: string; message: string }> = {
  ca_api_certificate_authorities_serial_unique: {
    entity: 'ca',
    field: 'serial',
    message: 'A certificate authority with this serial already exists.',
  },
  ca_api_certificate_authorities_name_unique: {
    entity: 'ca',
    field: 'name',
    message: 'Certificate Authority with this Name already exists.',
  },
  // Raised by the trigger of migrations 0029 and 0030: the serial's intent was given up (an instance that stalled past
  // its issuance lease), so its late certificate is not stored — another may have been issued meanwhile.
  ca_api_issuance_intents_given_up: {
    entity: 'certificate',
    field: 'serial',
    message: 'The issuance of this certificate was given up (its intent failed): it is not stored.',
  },
  // Raised by the trigger of migration 0036: the certificate is not the TBSCertificate its serial's intent recorded.
  ca_api_issuance_intents_other_tbs: {
    entity: 'certificate',
    field: 'serial',
    message: 'This certificate is not the one its issuance intent recorded for the serial: it is not stored.',
  },
  ca_api_certificates_ca_id_serial_unique: {
    entity: 'certificate',
    field: 'serial',
    message: 'A certificate with this serial already exists for this certificate authority.',
  },
  ca_api_orders_slug_unique: { entity: 'order', field: 'slug', message: 'An order with this slug already exists.' },
  ca_api_users_username_unique: { entity: 'user', field: 'username', message: 'A user with that username already exists.' },
  ca_api_enrolment_endpoints_protocol_label_unique: {
    entity: 'enrolment_endpoint',
    field: 'protocol,label',
    message: 'An enrolment endpoint with this protocol and label already exists.',
  },
};

const TABLE_ENTITIES: Record<string, StoreEntity> = {
  ca_api_certificate_authorities: 'ca',
  ca_api_certificates: 'certificate',
  ca_api_orders: 'order',
  ca_api_users: 'user',
  ca_api_user_permissions: 'user',
};

interface DatabaseErrorLike {
  code?: unknown;
  constraint?: unknown;
  table?: unknown;
}

/** Node's socket error codes that mean the server is not there (any more). */
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** SQLSTATEs of a server that is going away or not ready yet (PostgreSQL Appendix A, class 57). */
const SERVER_GONE = new Set(['57P01', '57P02', '57P03']);

/** `pg` and knex say "no connection" in their messages only. */
const NO_CONNECTION_MESSAGE =
  /Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Timeout acquiring a connection/;

function isConnectionFailure(e: DatabaseErrorLike & { name?: unknown; message?: unknown }): boolean {
  if (typeof e.code === 'string' && (SOCKET_ERRORS.has(e.code) || SERVER_GONE.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code))) return true;
  if (e.name === 'KnexTimeoutError') return true;
  return typeof e.message === 'string' && NO_CONNECTION_MESSAGE.test(e.message);
}

/**
 * knex's pool timeout (KnexTimeoutError) says "The pool is probably full. Are you missing a
 * .transacting(trx) call?": a hint about the caller's code, wrong for whoever reads it here (an
 * operator, a host's log). It is told in our words; any other error by its own message.
 */
export function connectionFailureMessage(error: unknown): string {
  const e = error as { name?: unknown; message?: unknown } | null;
  if (e && typeof e === 'object' && e.name === 'KnexTimeoutError') {
    return 'no database connection became free in time (the database is busy, or not answering).';
  }
  return e && typeof e === 'object' && typeof e.message === 'string' ? e.message : String(error);
}

/** The store's typed error for a database error (see the file header); anything else unchanged. */
export function mapDatabaseError(error: unknown): unknown {
  const e = error as (DatabaseErrorLike & { name?: unknown; message?: unknown }) | null;
  if (!e || typeof e !== 'object' || error instanceof StoreUnavailableError) return error;
  if (isConnectionFailure(e)) {
    if (e.name === 'KnexTimeoutError') {
      // Its cause is the pool's own timeout error; the knex error's message is the hint told above.
      const cause = (error as { cause?: unknown }).cause;
      const text = connectionFailureMessage(error);
      return new StoreUnavailableError(text[0].toUpperCase() + text.slice(1), {
        ...(cause === undefined ? {} : { cause }),
        connectionLost: true,
      });
    }
    // The driver's message can name the host and port, never a password; keep it for the log.
    const message = typeof e.message === 'string' && e.message ? e.message : 'The database cannot be reached.';
    return new StoreUnavailableError(message, { cause: error, connectionLost: true });
  }
  if (typeof e.code !== 'string' || !SQLSTATE.test(e.code)) return error;
  if (e.code !== UNIQUE_VIOLATION) {
    const message = error instanceof Error && error.message ? error.message : `Database error ${e.code}`;
    return new StoreUnavailableError(message, { cause: error });
  }
  const known = typeof e.constraint === 'string' ? UNIQUE_CONSTRAINTS[e.constraint] : undefined;
  if (known) return new StoreConflictError(known.message, known.entity, known.field);
  const entity = (typeof e.table === 'string' && TABLE_ENTITIES[e.table]) || 'user';
  return new StoreConflictError(
    `Duplicate value violates unique constraint ${String(e.constraint ?? 'unknown')}`,
    entity,
    String(e.constraint ?? ''),
  );
}

/** `work`, with a database error rethrown as the store's typed error. */
export async function mappingErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw mapDatabaseError(e);
  }
}
