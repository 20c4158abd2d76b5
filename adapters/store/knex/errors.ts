/**
 * Database errors → the store's typed errors (lib/ports.ts), so that nothing outside this adapter reads
 * driver errors. Both `pg` and PGlite report PostgreSQL's five-character SQLSTATE in `code` and the
 * violated constraint's name in `constraint`:
 * - a unique violation (23505) is a StoreConflictError naming the entity and field;
 * - any other SQLSTATE is a StoreUnavailableError: the database failed the statement, the transaction
 *   is unusable, and the order runner retries the order instead of failing it (docs/DESIGN.md "Orders").
 * Anything else (the rules' own errors, a driver's socket error) passes through unchanged.
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
  ca_api_certificates_ca_id_serial_unique: {
    entity: 'certificate',
    field: 'serial',
    message: 'A certificate with this serial already exists for this certificate authority.',
  },
  ca_api_orders_slug_unique: { entity: 'order', field: 'slug', message: 'An order with this slug already exists.' },
  ca_api_users_username_unique: { entity: 'user', field: 'username', message: 'A user with that username already exists.' },
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

/** The store's typed error for a database error (see the file header); anything else unchanged. */
export function mapDatabaseError(error: unknown): unknown {
  const e = error as DatabaseErrorLike | null;
  if (!e || typeof e !== 'object' || typeof e.code !== 'string' || !SQLSTATE.test(e.code)) return error;
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
