/**
 * The knex implementation of the `Store` port, for PostgreSQL (`pg`) and embedded PGlite alike.
 *
 * A `KnexStore` wraps either the root knex instance or an open transaction. `transaction(fn)` on the
 * root opens one and hands `fn` a store bound to it; on a bound store it simply reuses the open
 * transaction, so code can call `transaction` without knowing whether it already runs inside one.
 * Methods that write several rows open a transaction themselves (or join the caller's).
 *
 * PGlite serves a single connection: code inside `fn` must use the `tx` store it is given; calling
 * the outer store from inside would wait for the connection the transaction holds.
 */
import type { Knex } from 'knex';
import type {
  CaFilter,
  CaPatch,
  CaRecord,
  CertificateFilter,
  CertificateRecord,
  NewCa,
  NewCertificate,
  OrderRecord,
  Permission,
  SignRequest,
  Store,
  UserRecord,
} from '../../../lib/ports';
import * as cas from './cas';
import * as certificates from './certificates';
import { MIGRATIONS_TABLE, migrationSource } from './migrations';
import * as orders from './orders';
import * as users from './users';

export class KnexStore implements Store {
  /** `db` is the root knex instance, or the transaction this store is bound to. */
  constructor(
    private readonly db: Knex,
    private readonly bound: boolean,
  ) {}

  async migrate(): Promise<void> {
    if (this.bound) throw new Error('migrate() cannot run inside a store transaction');
    await this.db.migrate.latest({ migrationSource, tableName: MIGRATIONS_TABLE });
  }

  async close(): Promise<void> {
    if (this.bound) throw new Error('close() cannot be called on a store bound to a transaction');
    await this.db.destroy();
  }

  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    if (this.bound) return fn(this);
    return this.db.transaction((trx) => fn(new KnexStore(trx, true)));
  }

  insertCa(ca: NewCa): Promise<CaRecord> {
    return cas.insertCa(this.db, ca);
  }
  getCa(id: number): Promise<CaRecord | null> {
    return cas.getCa(this.db, id);
  }
  findCaBySerial(serial: string): Promise<CaRecord | null> {
    return cas.findCaBySerial(this.db, serial);
  }
  findCaByName(name: string): Promise<CaRecord | null> {
    return cas.findCaByName(this.db, name);
  }
  listCas(filter?: CaFilter): Promise<CaRecord[]> {
    return cas.listCas(this.db, filter);
  }
  updateCa(id: number, patch: CaPatch): Promise<CaRecord> {
    return cas.updateCa(this.db, id, patch);
  }
  revokeCa(id: number, reason: string, compromised: Date | null, when: Date): Promise<CaRecord> {
    return cas.revokeCa(this.db, id, reason, compromised, when);
  }

  insertCertificate(cert: NewCertificate): Promise<CertificateRecord> {
    return certificates.insertCertificate(this.db, cert);
  }
  findCertificate(caId: number, serial: string): Promise<CertificateRecord | null> {
    return certificates.findCertificate(this.db, caId, serial);
  }
  findCertificateBySerial(serial: string): Promise<CertificateRecord[]> {
    return certificates.findCertificateBySerial(this.db, serial);
  }
  listCertificates(filter: CertificateFilter): Promise<CertificateRecord[]> {
    return certificates.listCertificates(this.db, filter);
  }
  revokeCertificate(id: number, reason: string, compromised: Date | null, when: Date): Promise<CertificateRecord> {
    return certificates.revokeCertificate(this.db, id, reason, compromised, when);
  }

  createOrder(order: { caId: number; userId: number; request: SignRequest }): Promise<OrderRecord> {
    return orders.createOrder(this.db, order);
  }
  getOrder(slug: string): Promise<OrderRecord | null> {
    return orders.getOrder(this.db, slug);
  }
  claimPendingOrders(limit: number): Promise<OrderRecord[]> {
    return orders.claimPendingOrders(this.db, limit);
  }
  markOrderIssued(orderId: number, certificateId: number): Promise<OrderRecord> {
    return this.inTransaction((db) => orders.markOrderIssued(db, orderId, certificateId));
  }
  markOrderFailed(orderId: number, error: string): Promise<OrderRecord> {
    return this.inTransaction((db) => orders.markOrderFailed(db, orderId, error));
  }

  createUser(username: string, passwordHash: string, permissions: Permission[]): Promise<UserRecord> {
    return this.inTransaction((db) => users.createUser(db, username, passwordHash, permissions));
  }
  findUser(username: string): Promise<UserRecord | null> {
    return users.findUser(this.db, username);
  }
  getUserById(id: number): Promise<UserRecord | null> {
    return users.getUserById(this.db, id);
  }
  updateUser(id: number, patch: { passwordHash?: string; permissions?: Permission[] }): Promise<UserRecord> {
    return this.inTransaction((db) => users.updateUser(db, id, patch));
  }

  /** Run several statements atomically: in the bound transaction, or in a new one. */
  private inTransaction<T>(work: (db: Knex) => Promise<T>): Promise<T> {
    return this.bound ? work(this.db) : this.db.transaction((trx) => work(trx));
  }
}
