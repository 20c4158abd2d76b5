/**
 * The persistence port, split by what its callers need: a service that only reads CAs asks for a
 * `CaReader`, the CLI's user commands for a `UserStore`, and so on. `Store` is all of them; the knex
 * store (adapters/store/knex) implements it whole. Every method is atomic; `transaction` groups
 * several into one.
 */
import type { Permission, UserAdministration, UserChangeEvents, UserPatch, UserRecord } from './users';
import type { CertificateFilter, CertificateVersionListing } from './inventory';
import type { CaChangeEvents, CertificateChangeEvents } from './changes';
import type { DelegateKeyStore } from './delegate-keys';
import type { StoredKeyRewriting } from './key-rotation';
import type { AdminSessionStoreProvider } from './admin-sessions';
import type { RevocationStore } from './revocation';
import type { CertificateStatisticsProvider } from './certificate-statistics';
import type { AuditLogProvider } from './audit';
import type { FilteredEventLog } from './events';
import type { EnrolmentStoreProvider } from './enrolment-challenges';
import type { EnrolmentEndpointStoreProvider } from './enrolment-endpoints';
import type { EnrolmentRequestStoreProvider } from './enrolment-requests';
import type { WebhookStoreProvider } from './webhooks';
import type { IssuanceIntentStore } from './intents';
import type { CaFilter, CaPatch, CaRecord, CertificateRecord, NewCa, NewCertificate, NewOrder, OrderRecord, OrderStatus } from './records';

/** Finding CAs: the read paths (views, lists, the public revocation endpoints). */
export interface CaReader {
  getCa(id: number): Promise<CaRecord | null>;
  findCaBySerial(serial: string): Promise<CaRecord | null>;
  findCaByName(name: string): Promise<CaRecord | null>;
  listCas(filter?: CaFilter): Promise<CaRecord[]>;
}

/** CAs: creating, editing and revoking them. */
export interface CaStore extends CaReader {
  insertCa(ca: NewCa): Promise<CaRecord>;
  updateCa(id: number, patch: CaPatch): Promise<CaRecord>;
  revokeCa(id: number, reason: string, compromised: Date | null, when: Date): Promise<CaRecord>;
}

/** Finding certificates. */
export interface CertificateReader {
  findCertificate(caId: number, serial: string): Promise<CertificateRecord | null>;
  /** By serial across all CAs (CLI). */
  findCertificateBySerial(serial: string): Promise<CertificateRecord[]>;
  listCertificates(filter: CertificateFilter): Promise<CertificateRecord[]>;
}

/** Certificates: storing issued or imported ones, revoking them. */
export interface CertificateStore extends CertificateReader {
  insertCertificate(cert: NewCertificate): Promise<CertificateRecord>;
  revokeCertificate(id: number, reason: string, compromised: Date | null, when: Date): Promise<CertificateRecord>;
}

/** Sign orders: placed by the sign endpoints, finished by an order runner. */
export interface OrderStore {
  /**
   * A new `pending` order, with its `rest_order` job (lib/ports/jobs.ts) written in the same statement:
   * leased to `order.lease` when given, so that only that runner takes it until the lease lapses.
   */
  createOrder(order: NewOrder): Promise<OrderRecord>;
  getOrder(slug: string): Promise<OrderRecord | null>;
  markOrderIssued(orderId: number, certificateId: number): Promise<OrderRecord>;
  markOrderFailed(orderId: number, error: string): Promise<OrderRecord>;
}

/** Which sign orders `OrderListing.listOrders` returns: one CA's, oldest first. */
export interface OrderFilter {
  caId: number;
  status?: OrderStatus;
  /** Keyset pagination: orders with an id above this one, at most `limit` of them. */
  afterId?: number;
  limit?: number;
}

/** Optional store capability: a CA's sign orders as an operator reads them (`ca-admin list_orders`). */
export interface OrderListing {
  /** The orders `filter` names, oldest (lowest id) first, with the issued certificate's serial. */
  listOrders(filter: OrderFilter): Promise<OrderRecord[]>;
}

export function hasOrderListing<S extends object>(store: S): store is S & OrderListing {
  return typeof (store as Partial<OrderListing>).listOrders === 'function';
}

/**
 * Optional store capability: failed sign orders put back in the queue (`ca-admin retry_orders`), for
 * failures that have passed — a key store that was away, a database that refused the write. The
 * order runner of any instance then signs them again, as it does any pending order.
 */
export interface OrderRetry {
  /**
   * The failed orders of `caId` — of them only those named in `slugs`, when given — made `pending`
   * again with their error cleared, each recorded as an `order.retried` event in the same statement;
   * the orders as now stored, oldest first.
   */
  retryFailedOrders(caId: number, slugs?: readonly string[]): Promise<OrderRecord[]>;
}

export function hasOrderRetry<S extends object>(store: S): store is S & OrderRetry {
  return typeof (store as Partial<OrderRetry>).retryFailedOrders === 'function';
}

/** API users and their permissions (lib/ports/users.ts has the records). */
export interface UserStore {
  createUser(username: string, passwordHash: string, permissions: Permission[]): Promise<UserRecord>;
  findUser(username: string): Promise<UserRecord | null>;
  getUserById(id: number): Promise<UserRecord | null>;
  updateUser(id: number, patch: UserPatch): Promise<UserRecord>;
}

/**
 * The whole persistence port, with the parts that used to be optional capabilities and that every
 * store must now have: user administration, the caches' change events, the certificate list's two-step
 * read, delegate keys, the KEK rotation's rewrite, admin sessions, revocation serving, the admin
 * interface's statistics, the audit log, the filtered event read, and
 * device enrolment's challenges, transactions, stored endpoints and requests waiting for approval, and
 * the webhook endpoints.
 */
export interface Store
  extends
    CaStore,
    CertificateStore,
    OrderStore,
    UserStore,
    IssuanceIntentStore,
    UserAdministration,
    UserChangeEvents,
    CaChangeEvents,
    CertificateChangeEvents,
    CertificateVersionListing,
    DelegateKeyStore,
    StoredKeyRewriting,
    AdminSessionStoreProvider,
    RevocationStore,
    CertificateStatisticsProvider,
    AuditLogProvider,
    FilteredEventLog,
    EnrolmentStoreProvider,
    EnrolmentEndpointStoreProvider,
    EnrolmentRequestStoreProvider,
    WebhookStoreProvider {
  /** Create or update the tables; resolves to how many migrations it applied now, where the store can tell. */
  migrate(): Promise<number | void>;
  close(): Promise<void>;
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T>;
}
