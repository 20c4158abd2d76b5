/**
 * The knex implementation of the `Store` port, for PostgreSQL (`pg`) and embedded PGlite alike.
 *
 * A `KnexStore` wraps either the root knex instance or an open transaction. `transaction(fn)` on the
 * root opens one and hands `fn` a store bound to it; on a bound store it simply reuses the open
 * transaction, so code can call `transaction` without knowing whether it already runs inside one.
 * Methods that write several rows open a transaction themselves (or join the caller's). PGlite
 * serves one connection: code inside `fn` must use the `tx` store it is given. Changes are announced
 * (`onUserChanged`, `onCaChanged`, `onCertificateChanged`, for the caches) once committed.
 * Events (`EventLog`): last in each change's own transaction, by this store for certificates, orders
 * CAs, users and the rest, from the code that makes the change (transaction-events.ts); `actingAs(actor)`
 * gives a store whose writes name that actor. Every method throws lib/ports' typed errors (errors.ts).
 */
import type { Knex } from 'knex';
import type {
  CaFilter,
  CaPatch,
  CaRecord,
  CertificateFilter,
  CertificateListRow,
  CertificateVersion,
  CertificateRecord,
  NewCa,
  NewCertificate,
  NewIssuedOrder,
  NewOrder,
  OrderFilter,
  OrderRecord,
  Permission,
  UserRecord,
  CrlScope,
  OcspResponderRecord,
  RevokedCertificate,
  Store,
  StoredKeyRewriting,
} from '../../../lib/ports';
import type * as ports from '../../../lib/ports';
import type { KnexStoreCapabilities } from './capabilities';
import * as cas from './cas';
import * as delegateKeys from './delegate-keys';
import { KnexEnrolmentEndpointStore } from './enrolment-endpoints';
import { KnexEnrolmentRequestStore, KnexEnrolmentStore } from './enrolment-challenges';
import { KnexAdminSessionStore } from './admin-sessions';
import { KnexCertificateStatistics } from './certificate-statistics';
import * as certificates from './certificates';
import { mappingErrors } from './errors';
import { rootHubs, type ChangedKind, type ChangeHubs, type PendingChanges } from './store-hubs';
import { KnexAcmeStore } from './acme/store';
import { appendEvents } from './event-writer';
import * as events from './events';
import { KnexAuditLog } from './audit';
import { KnexMetricsReadings } from './metrics-readings';
import { KnexWebhookStore } from './webhooks';
import { KnexJobStore } from './jobs';
import { MIGRATIONS_TABLE, migrationsCurrent, migrationSource } from './migrations';
import * as intents from './intents';
import * as issuedOrders from './issued-orders';
import * as keyRotation from './key-rotation';
import * as orders from './orders';
import * as revocation from './revocation';
import * as users from './users';
import { nameOrder, writeWithEvents, type EventBatch, type RecordEvents } from './transaction-events';

export class KnexStore implements KnexStoreCapabilities<KnexStore> {
  /**
   * `db` is the root knex instance, or the transaction this store is bound to. `pending` is where a
   * bound store collects changed ids until its transaction commits. `actor` is named in the events
   * of this store's writes (`actingAs`).
   */
  constructor(
    private readonly db: Knex,
    private readonly bound: boolean,
    hubs?: ChangeHubs,
    private readonly pending: PendingChanges | null = null,
    private readonly actor: ports.Actor | null = null,
  ) {
    this.hubs = hubs ?? rootHubs(this.db);
  }

  private readonly hubs: ChangeHubs;

  onUserChanged = (listener: (userId: number) => void): (() => void) => this.hubs.users.subscribe(listener);
  onCaChanged = (listener: (caId: number) => void): (() => void) => this.hubs.cas.subscribe(listener);
  onCertificateChanged = (listener: (certificateId: number) => void): (() => void) => this.hubs.certificates.subscribe(listener);

  /** Announce now, or (inside `transaction`) once the transaction has committed. */
  private changed(kind: ChangedKind, id: number): void {
    if (this.pending) this.pending[kind].push(id);
    else this.hubs[kind].emit([id]);
  }

  private async changing<T extends { id: number }>(kind: ChangedKind, work: Promise<T>): Promise<T> {
    const record = await work;
    this.changed(kind, record.id);
    return record;
  }

  /** This store, with `actor` named in the events of its writes (and of transactions it opens). */
  actingAs(actor: ports.Actor): KnexStore {
    return new KnexStore(this.db, this.bound, this.hubs, this.pending, actor);
  }

  eventsSince(afterId: number, limit?: number): Promise<ports.DomainEvent[]> {
    return mappingErrors(() => events.eventsSince(this.db, afterId, limit));
  }
  eventsOfTypesSince(afterId: number, types: readonly string[], limit?: number): Promise<ports.EventsOfTypes> {
    return mappingErrors(() => events.eventsOfTypesSince(this.db, afterId, types, limit));
  }
  latestEventId(): Promise<number> {
    return mappingErrors(() => events.latestEventId(this.db));
  }
  /** What the metrics endpoint reads (`MetricsReadingsProvider`, metrics-readings.ts), on this store's connection. */
  get metricsReadings(): KnexMetricsReadings {
    return this.part('readings', () => new KnexMetricsReadings(this.db));
  }
  /** Device enrolment: challenges and answered transactions, then requests waiting for approval (migration 0025). */
  get enrolment(): KnexEnrolmentStore {
    return this.part('enrolment', () => new KnexEnrolmentStore(this.db, this.bound ? undefined : this.hubs.answeringCertificates));
  }
  /** The enrolment endpoints kept in the database (`EnrolmentEndpointStoreProvider`); writes name this store's actor. */
  get enrolmentEndpoints(): KnexEnrolmentEndpointStore {
    return this.part('enrolmentEndpoints', () => new KnexEnrolmentEndpointStore(this.db, this.boundEvents(), this.actor));
  }
  get enrolmentRequests(): KnexEnrolmentRequestStore {
    return this.part('enrolmentRequests', () => new KnexEnrolmentRequestStore(this.db, this.boundEvents()));
  }
  /** The admin interface's sessions (`AdminSessionStoreProvider`, admin-sessions.ts). */
  get adminSessions(): KnexAdminSessionStore {
    return this.part('adminSessions', () => new KnexAdminSessionStore(this.db));
  }
  get certificateStatistics(): KnexCertificateStatistics {
    return this.part('certificateStatistics', () => new KnexCertificateStatistics(this.db));
  }
  /** Background jobs (`JobStoreProvider`, jobs.ts): the one table of work the job runner claims. */
  get jobs(): KnexJobStore {
    return this.part('jobs', () => new KnexJobStore(this.db));
  }
  /** The webhook endpoints and their delivery (`WebhookStoreProvider`, webhooks.ts); writes name this store's actor. */
  get webhooks(): KnexWebhookStore {
    return this.part('webhooks', () => new KnexWebhookStore(this.db, this.boundEvents(), this.actor));
  }
  /** The audit log: the events as their hash chain covers them (audit.ts, migration 0011). */
  get auditLog(): KnexAuditLog {
    return this.part('audit', () => new KnexAuditLog(this.db, this.boundEvents()));
  }
  /** The capability objects above, made on first use, one per store. */
  private readonly parts = new Map<string, unknown>();
  private part<T>(name: string, make: () => T): T {
    if (!this.parts.has(name)) this.parts.set(name, make());
    return this.parts.get(name) as T;
  }

  createAcmeNonce(ttlMs: number): Promise<string> {
    return mappingErrors(() => this.hubs.nonces.create(ttlMs, this.db));
  }

  consumeAcmeNonce(nonce: string): Promise<boolean> {
    return mappingErrors(() => this.hubs.nonces.consume(nonce, this.db));
  }

  /** The ACME server's store (`AcmeStoreProvider`), on this store's connection and transactions (acme/store.ts). */
  get acme(): KnexAcmeStore {
    const { acme } = this.hubs;
    return (this.acmeStore ??= new KnexAcmeStore(this.db, this.bound ? { ...acme, groups: null } : acme, this.boundEvents(), this.actor));
  }
  private acmeStore: KnexAcmeStore | undefined;

  /** Resolves to the number of migrations applied now (0: the tables were current). */
  async migrate(): Promise<number> {
    if (this.bound) throw new Error('migrate() cannot run inside a store transaction');
    if (await migrationsCurrent(this.db)) return 0;
    const [, applied] = (await this.db.migrate.latest({ migrationSource, tableName: MIGRATIONS_TABLE })) as [number, string[]];
    return applied.length;
  }

  async close(): Promise<void> {
    if (this.bound) throw new Error('close() cannot be called on a store bound to a transaction');
    await this.db.destroy();
  }

  async transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    if (this.bound) return fn(this);
    const pending: PendingChanges = { users: [], cas: [], certificates: [], events: [] };
    const result = await mappingErrors(() =>
      this.db.transaction(async (trx) => {
        const value = await fn(new KnexStore(trx, true, this.hubs, pending, this.actor));
        await appendEvents(trx, pending.events); // the last statement (event-writer.ts)
        return value;
      }),
    );
    for (const kind of ['users', 'cas', 'certificates'] as const) {
      if (pending[kind].length) this.hubs[kind].emit(pending[kind]);
    }
    return result;
  }

  insertCa(ca: NewCa): Promise<CaRecord> {
    return this.writeCa((db, record) => cas.insertCa(db, ca, record));
  }
  getCa(id: number): Promise<CaRecord | null> {
    return mappingErrors(() => cas.getCa(this.db, id));
  }
  findCaBySerial(serial: string): Promise<CaRecord | null> {
    return mappingErrors(() => cas.findCaBySerial(this.db, serial));
  }
  findCaByName(name: string): Promise<CaRecord | null> {
    return mappingErrors(() => cas.findCaByName(this.db, name));
  }
  listCas(filter?: CaFilter): Promise<CaRecord[]> {
    return mappingErrors(() => cas.listCas(this.db, filter));
  }
  updateCa(id: number, patch: CaPatch): Promise<CaRecord> {
    return this.writeCa((db, record) => cas.updateCa(db, id, patch, record));
  }
  revokeCa(id: number, reason: string, compromised: Date | null, when: Date): Promise<CaRecord> {
    return this.writeCa((db, record) => cas.revokeCa(db, id, reason, compromised, when, record));
  }

  insertCertificate(cert: NewCertificate): Promise<CertificateRecord> {
    if (!this.bound && !this.actor) return mappingErrors(() => this.hubs.newCertificates.write(cert)); // no actor to name: grouped
    return this.writeWithEvents((db, record) => certificates.insertCertificate(db, cert, record));
  }
  recordIntent(intent: ports.NewIssuanceIntent): Promise<ports.IssuanceIntentRecord | ports.IntentTaken> {
    // Outside a transaction, intents of concurrent requests share one INSERT (group-commit.ts).
    return mappingErrors(() => (this.bound ? intents.recordIntent(this.db, intent) : this.hubs.newIntents.write(intent)));
  }
  failIntent(id: number, failure: string): Promise<void> {
    return mappingErrors(() => intents.failIntent(this.db, id, failure));
  }
  settleInterruptedIntents(before: Date, failure: string): Promise<number> {
    return mappingErrors(() => intents.settleInterruptedIntents(this.db, before, failure));
  }
  listIntents(filter?: ports.IntentFilter): Promise<ports.IssuanceIntentRecord[]> {
    return mappingErrors(() => intents.listIntents(this.db, filter));
  }
  findCertificate(caId: number, serial: string): Promise<CertificateRecord | null> {
    return mappingErrors(() => certificates.findCertificate(this.db, caId, serial));
  }
  findCertificateBySerial(serial: string): Promise<CertificateRecord[]> {
    return mappingErrors(() => certificates.findCertificateBySerial(this.db, serial));
  }
  listCertificates(filter: CertificateFilter): Promise<CertificateRecord[]> {
    return mappingErrors(() => certificates.listCertificates(this.db, filter));
  }
  listCertificateVersions(filter: CertificateFilter): Promise<CertificateVersion[]> {
    return mappingErrors(() => certificates.listCertificateVersions(this.db, filter));
  }
  getCertificateListRows(ids: number[]): Promise<CertificateListRow[]> {
    return mappingErrors(() => certificates.getCertificateListRows(this.db, ids));
  }
  revokeCertificate(id: number, reason: string, compromised: Date | null, when: Date): Promise<CertificateRecord> {
    return mappingErrors(() =>
      this.changing(
        'certificates',
        this.writeWithEvents((db, record) => certificates.revokeCertificate(db, id, reason, compromised, when, record)),
      ),
    );
  }

  createOrder(order: NewOrder): Promise<OrderRecord> {
    // Outside a transaction, orders of concurrent requests share one INSERT (group-commit.ts).
    return mappingErrors(() => (this.bound ? orders.createOrder(this.db, order) : this.hubs.newOrders.write(order)));
  }
  createIssuedOrder(order: NewIssuedOrder): Promise<OrderRecord | null> {
    // Like `createOrder`: concurrent sign requests share one statement (group-commit.ts).
    if (this.bound) return this.writeWithEvents((db, record) => issuedOrders.createIssuedOrder(db, order, record));
    return mappingErrors(() => this.hubs.issuedOrders.write(order));
  }
  getOrder(slug: string): Promise<OrderRecord | null> {
    return mappingErrors(() => orders.getOrder(this.db, slug));
  }
  listOrders(filter: OrderFilter): Promise<OrderRecord[]> {
    return mappingErrors(() => orders.listOrders(this.db, filter));
  }
  insertCertificateIds(certs: NewCertificate[]): Promise<number[]> {
    return this.writeWithEvents((db, record) => certificates.insertCertificateIds(db, certs, record));
  }
  pendingOrders(ids: readonly number[]): Promise<OrderRecord[]> {
    return mappingErrors(() => orders.pendingOrders(this.db, ids));
  }
  failOrders(failed: { order: OrderRecord; reason: string }[], leaseOwner: string): Promise<OrderRecord[]> {
    if (this.bound) return this.writeWithEvents((db, record) => orders.failOrders(db, failed, leaseOwner, record, this.actor));
    return mappingErrors(() => orders.failOrders(this.db, failed, leaseOwner, null, this.actor));
  }
  issueOrders(
    issued: { order: OrderRecord; certificate: NewCertificate }[],
    when: Date,
    leaseOwner: string,
  ): Promise<{ orderId: number; certificateId: number }[]> {
    if (this.bound) return this.writeWithEvents((db, record) => orders.issueOrders(db, issued, when, leaseOwner, record, this.actor));
    return mappingErrors(() => orders.issueOrders(this.db, issued, when, leaseOwner, null, this.actor));
  }
  releaseOrderJobs(orderIds: readonly number[], leaseOwner: string): Promise<void> {
    return mappingErrors(() => orders.releaseOrderJobs(this.db, orderIds, leaseOwner));
  }
  markOrderIssued(orderId: number, certificateId: number): Promise<OrderRecord> {
    return mappingErrors(async () => {
      const order = await this.inTransaction((db) => orders.markOrderIssued(db, orderId, certificateId));
      const batch = this.boundEvents(); // a certificate stored in this transaction: its event names the order
      if (batch) nameOrder(batch, certificateId, order.slug);
      return order;
    });
  }
  markOrderFailed(orderId: number, error: string): Promise<OrderRecord> {
    return this.writeWithEvents((db, record) => orders.markOrderFailed(db, orderId, error, record));
  }
  retryFailedOrders(caId: number, slugs?: readonly string[]): Promise<OrderRecord[]> {
    return this.writeWithEvents((db, record) => orders.retryFailedOrders(db, caId, record, slugs));
  }

  listRevoked(caId: number, scope: CrlScope, window: { from: Date; to: Date }): Promise<RevokedCertificate[]> {
    return mappingErrors(() => revocation.listRevoked(this.db, caId, scope, window));
  }
  nextCrlNumber(caId: number, scope: CrlScope | 'all', atLeast?: bigint): Promise<bigint> {
    return this.writeWithEvents((db, record) => revocation.nextCrlNumber(db, caId, scope, record, atLeast));
  }
  revocationVersion(caId: number): Promise<number> {
    return mappingErrors(() => revocation.revocationVersion(this.db, caId));
  }
  getOcspResponder(caId: number): Promise<OcspResponderRecord | null> {
    return mappingErrors(() => revocation.getOcspResponder(this.db, caId));
  }
  setOcspResponder(caId: number, responder: OcspResponderRecord): Promise<void> {
    return mappingErrors(() => revocation.setOcspResponder(this.db, caId, responder));
  }
  getDelegateKey(caId: number, purpose: ports.DelegatePurpose): Promise<ports.DelegateKeyRecord | null> {
    return mappingErrors(() => delegateKeys.getDelegateKey(this.db, caId, purpose));
  }
  setDelegateKey(caId: number, purpose: ports.DelegatePurpose, record: ports.DelegateKeyRecord): Promise<void> {
    return mappingErrors(() => delegateKeys.setDelegateKey(this.db, caId, purpose, record));
  }
  /** `ca-admin rotate_kek`: every stored key of a backend rewritten in one transaction, recorded in it (key-rotation.ts). */
  async rewriteStoredKeys(
    alias: string,
    rewrite: Parameters<StoredKeyRewriting['rewriteStoredKeys']>[1],
    about?: Record<string, string>,
    reseal?: Parameters<StoredKeyRewriting['rewriteStoredKeys']>[3],
  ): Promise<number> {
    const done = await this.writeWithEvents((db, record) => keyRotation.rewriteStoredKeys(db, alias, rewrite, record, about, reseal));
    for (const id of done.caIds) this.changed('cas', id);
    return done.keys;
  }

  async createUser(username: string, passwordHash: string, permissions: Permission[]): Promise<UserRecord> {
    const user = await this.writeWithEvents((db, record) => users.createUser(db, username, passwordHash, permissions, record));
    this.changed('users', user.id);
    return user;
  }
  findUser(username: string): Promise<UserRecord | null> {
    return mappingErrors(() => users.findUser(this.db, username));
  }
  getUserById(id: number): Promise<UserRecord | null> {
    return mappingErrors(() => users.getUserById(this.db, id));
  }
  async updateUser(id: number, patch: ports.UserPatch): Promise<UserRecord> {
    const user = await this.writeWithEvents((db, record) => users.updateUser(db, id, patch, record));
    this.changed('users', user.id);
    return user;
  }
  listUsers(): Promise<UserRecord[]> {
    return mappingErrors(() => users.listUsers(this.db));
  }
  async deleteUser(id: number): Promise<{ orders: number }> {
    const deleted = await this.writeWithEvents((db, record) => users.deleteUser(db, id, record));
    this.changed('users', id);
    return deleted;
  }

  /** A write that records its events, naming this store's actor (transaction-events.ts). */
  private writeWithEvents<T>(work: (db: Knex, record: RecordEvents) => Promise<T>): Promise<T> {
    return writeWithEvents(this.db, this.boundEvents(), this.actor, work);
  }

  /** The events of the transaction this store is bound to (transaction-events.ts); null: none. */
  private boundEvents(): EventBatch | null {
    return this.bound && this.pending ? this.pending.events : null;
  }

  /** A write of a CA row: its events name this store's actor, its change is announced (for the caches). */
  private writeCa(work: (db: Knex, record: RecordEvents) => Promise<CaRecord>): Promise<CaRecord> {
    return mappingErrors(() => this.changing('cas', this.writeWithEvents(work)));
  }

  /** Run several statements atomically: in the bound transaction, or in a new one. */
  private inTransaction<T>(work: (db: Knex) => Promise<T>): Promise<T> {
    return this.bound ? work(this.db) : this.db.transaction((trx) => work(trx));
  }
}
