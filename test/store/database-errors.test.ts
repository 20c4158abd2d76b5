/**
 * Database errors leave the knex store only as the typed store errors of lib/ports
 * (adapters/store/knex/errors.ts): a unique violation is a StoreConflictError, any other error the
 * database reports (a SQLSTATE) is a StoreUnavailableError with the driver's error as `cause`. The
 * order runner retries an order on these and fails it on the rules' errors, by type alone
 * (lib/ca/order-runner/runner-context.ts `isStoreError`), without knowing SQLSTATE codes.
 */
import { DatabaseError } from 'pg';
import { mapDatabaseError } from '../../adapters/store/knex/errors';
import { TABLES } from '../../adapters/store/knex/tables';
import { isStoreError } from '../../lib/ca/order-runner/runner-context';
import { CaError } from '../../lib/ca/errors';
import { isConnectionLost, StoreConflictError, StoreNotFoundError, StoreUnavailableError } from '../../lib/ports';
import { X509Error } from '../../lib/x509/errors';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa, newCertificate } from './records';

describe.each(testDatabaseTargets())('store errors on $name', (target) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(target);
  });
  afterAll(() => db?.close());
  beforeEach(() => db.truncate());

  test('an error the database raises comes out of a store method as StoreUnavailableError', async () => {
    const ca = await db.store.insertCa(newCa());
    await db.knex.raw(`
      create or replace function ca_api_test_refuse() returns trigger language plpgsql as $$
      begin raise exception 'refused by the test trigger'; end $$`);
    await db.knex.raw(
      `create trigger ca_api_test_refuse before insert on ${TABLES.certificates} for each row execute function ca_api_test_refuse()`,
    );
    try {
      const error: unknown = await db.store.insertCertificate(newCertificate(ca.id)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error).toMatchObject({
        name: 'StoreUnavailableError',
        code: 'unavailable',
        message: expect.stringMatching(/refused by the test trigger/),
      });
      // The driver's own error is kept, SQLSTATE P0001 (raise_exception) included.
      expect((error as Error).cause).toMatchObject({ code: 'P0001' });
      expect(isStoreError(error)).toBe(true);
    } finally {
      await db.knex.raw(`drop trigger ca_api_test_refuse on ${TABLES.certificates}`);
    }
  });

  test('a statement in a transaction the database has aborted is StoreUnavailableError; the rules’ errors pass through', async () => {
    const ca = await db.store.insertCa(newCa());
    const seen: unknown[] = [];
    const outcome = await db.store
      .transaction(async (tx) => {
        await tx.insertCertificate(newCertificate(ca.id, { serial: 'AB' }));
        seen.push(await tx.insertCertificate(newCertificate(ca.id, { serial: 'AB' })).catch((e: unknown) => e));
        seen.push(await tx.getCa(ca.id).catch((e: unknown) => e)); // 25P02: the transaction is aborted
        throw new CaError('invalid', 'a rule said no');
      })
      .catch((e: unknown) => e);
    expect(seen[0]).toBeInstanceOf(StoreConflictError);
    expect(seen[1]).toBeInstanceOf(StoreUnavailableError);
    expect(((seen[1] as Error).cause as { code?: string }).code).toBe('25P02');
    expect(outcome).toBeInstanceOf(CaError);
    expect(isStoreError(outcome)).toBe(false);
  });
});

describe('mapDatabaseError', () => {
  /** An error as pg's protocol parser builds it from an ErrorResponse message. */
  function pgError(message: string, fields: Record<string, string>): DatabaseError {
    return Object.assign(new DatabaseError(message, message.length, 'error'), fields);
  }

  test('a pg connection-level error (57P01, the server shut the session) is StoreUnavailableError', () => {
    const driver = pgError('terminating connection due to administrator command', { severity: 'FATAL', code: '57P01' });
    const mapped = mapDatabaseError(driver);
    expect(mapped).toBeInstanceOf(StoreUnavailableError);
    expect(mapped).toMatchObject({ message: driver.message, cause: driver });
    expect(mapDatabaseError(mapped)).toBe(mapped); // mapping twice changes nothing
  });

  test('a pg unique violation is StoreConflictError naming the field', () => {
    const driver = pgError('duplicate key value', { code: '23505', constraint: 'ca_api_certificate_authorities_name_unique' });
    expect(mapDatabaseError(driver)).toMatchObject({ name: 'StoreConflictError', entity: 'ca', field: 'name' });
  });

  test('a database that cannot be reached is StoreUnavailableError with connectionLost; a failed statement is not', () => {
    const lost = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      new Error('Connection terminated unexpectedly'),
      Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }),
      pgError('terminating connection due to administrator command', { code: '57P01' }),
      pgError('the database system is starting up', { code: '57P03' }),
      pgError('connection failure', { code: '08006' }),
    ];
    for (const driver of lost) {
      const mapped = mapDatabaseError(driver);
      expect(mapped).toBeInstanceOf(StoreUnavailableError);
      expect(mapped).toMatchObject({ connectionLost: true });
      expect(isConnectionLost(mapped)).toBe(true);
      if (driver.name === 'KnexTimeoutError') {
        // knex's hint about the caller's code is not passed on (test/store/first-open.test.ts).
        expect((mapped as Error).message).toBe('No database connection became free in time (the database is busy, or not answering).');
      } else expect(mapped).toMatchObject({ cause: driver });
    }
    const statement = mapDatabaseError(pgError('invalid byte sequence for encoding "UTF8": 0x00', { code: '22021' }));
    expect(statement).toMatchObject({ name: 'StoreUnavailableError', connectionLost: false });
    expect(isConnectionLost(statement)).toBe(false);
  });

  test('errors that are not the database’s pass through unchanged', () => {
    const rule = new CaError('invalid', 'no');
    const engine = new X509Error('validation', 'no');
    const other = Object.assign(new Error('EACCES'), { code: 'EACCES' });
    for (const e of [rule, engine, other, 'text', null]) expect(mapDatabaseError(e)).toBe(e);
  });
});

describe('isStoreError (the runner)', () => {
  test('the typed store errors are retried; the rules’ errors and untyped driver errors are not the runner’s to read', () => {
    expect(isStoreError(new StoreUnavailableError('gone'))).toBe(true);
    expect(isStoreError(new StoreConflictError('taken', 'certificate', 'serial'))).toBe(true);
    expect(isStoreError(new StoreNotFoundError('order', 1))).toBe(true);
    expect(isStoreError(new CaError('invalid', 'no'))).toBe(false);
    expect(isStoreError(new X509Error('validation', 'no'))).toBe(false);
    expect(isStoreError(Object.assign(new Error('deadlock'), { code: '40P01' }))).toBe(false);
  });
});
