/**
 * Ports: the interfaces between the library's rules and the outside world (database, key storage,
 * user directory, order processing). Defaults live in `adapters/`; a host replaces any of them by
 * passing its own implementation to `createCaApiRouter` or the admin functions.
 *
 * Shape follows smallstep's backends: small required interfaces, optional capabilities as separate
 * interfaces, backends addressed by name (`KeyBackend.alias`).
 *
 * Everything here is data in the library's own terms (Dates, Buffers, API JSON from lib/x509/types);
 * no SQL, no Express, no ASN.1.
 */
import type { CertificateJson, Extension, Fingerprints, KeySpec } from './x509/types';

export type { KeySpec };
import type { Signer } from './x509/signer';

// ---------------------------------------------------------------------------------------------------
// Users, authentication, authorization

export interface ApiUser {
  id: number;
  username: string;
}

/** The five permissions of the original API (Django codenames). */
export type Permission =
  'view_certificateauthority' | 'change_certificateauthority' | 'sign_certificate' | 'view_certificate' | 'revoke_certificate';

export const ALL_PERMISSIONS: readonly Permission[] = [
  'view_certificateauthority',
  'change_certificateauthority',
  'sign_certificate',
  'view_certificate',
  'revoke_certificate',
];

/**
 * What a permission is asked about. Today only global grants exist; `caSerial` is passed wherever a
 * request concerns one CA so that per-CA grants can be added without changing callers.
 */
export interface PermissionScope {
  caSerial?: string;
}

/** Credentials → user, or null when they are wrong. Must do equal work for unknown users. */
export interface Authenticator {
  authenticate(username: string, password: string): Promise<ApiUser | null>;
}

export interface PermissionChecker {
  hasPermission(user: ApiUser, permission: Permission, scope?: PermissionScope): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------------
// Key storage

/** What a backend returns for a key it now holds: the public key and how to find the key again. */
export interface StoredKey {
  /** SubjectPublicKeyInfo DER of the new key. */
  publicKeyDer: Buffer;
  /**
   * Backend-private reference kept in the CA row (`key_backend_options`). Never exposed by the API.
   * The default backend keeps the encrypted key here.
   */
  options: Record<string, unknown>;
}

export interface KeyBackend {
  /** Name the CA row refers to in `key_backend_alias` (`default` for the built-in backend). */
  readonly alias: string;
  createKey(spec: KeySpec): Promise<StoredKey>;
  /** Import an existing private key (DER or PEM, PKCS#8 or traditional, optionally encrypted). */
  importKey(key: Buffer | string, password?: string): Promise<StoredKey>;
  /**
   * A signer for the key described by `options`. `useOptions` are per-request options
   * (`key_backend_options` of a sign request); backends that need none ignore them.
   */
  getSigner(options: Record<string, unknown>, useOptions?: Record<string, unknown>): Promise<Signer>;
}

// ---------------------------------------------------------------------------------------------------
// Store records

/** Fields every stored certificate (CA or end entity) has. */
export interface X509Record {
  id: number;
  created: Date;
  updated: Date;
  serial: string; // upper-case hex, no leading zeros
  cn: string;
  notBefore: Date;
  notAfter: Date;
  der: Buffer;
  /** The parsed certificate as the API serialises it, computed once when stored. */
  certificate: CertificateJson;
  fingerprints: Fingerprints;
  revoked: boolean;
  revokedDate: Date | null;
  revokedReason: string; // snake_case reason name or ""
  compromised: Date | null;
}

export interface CaSignExtensions {
  signAuthorityInformationAccess: Extension | null;
  signCertificatePolicies: Extension | null;
  signCrlDistributionPoints: Extension | null;
  signIssuerAlternativeName: Extension | null;
}

export interface CaRecord extends X509Record, CaSignExtensions {
  name: string;
  enabled: boolean;
  apiEnabled: boolean;
  parentId: number | null;
  keyBackendAlias: string;
  /** Backend-private; null for a CA imported without its key. Never serialised by the API. */
  keyBackendOptions: Record<string, unknown> | null;
  caaIdentity: string;
  website: string;
  termsOfService: string;
  ocspKeyBackendAlias: string;
  ocspResponderKeyValidity: number;
  ocspResponseValidity: number;
  acmeEnabled: boolean;
  acmeRegistration: boolean;
  acmeProfile: string;
  acmeRequiresContact: boolean;
}

export type NewCa = Omit<CaRecord, 'id' | 'created' | 'updated'>;

/** Columns an operator or the API may change on a CA. */
export type CaPatch = Partial<
  Pick<
    CaRecord,
    | 'name'
    | 'enabled'
    | 'apiEnabled'
    | 'caaIdentity'
    | 'website'
    | 'termsOfService'
    | 'ocspResponderKeyValidity'
    | 'ocspResponseValidity'
    | 'acmeEnabled'
    | 'acmeRegistration'
    | 'acmeProfile'
    | 'acmeRequiresContact'
    | keyof CaSignExtensions
  >
>;

export interface CertificateRecord extends X509Record {
  caId: number;
  /** PEM of the CSR the certificate was signed from, or null (imported certificates). */
  csr: string | null;
  profile: string;
  autogenerated: boolean;
  watchers: { id: number; name: string; mail: string }[];
}

export type NewCertificate = Omit<CertificateRecord, 'id' | 'created' | 'updated' | 'watchers'>;

export type OrderStatus = 'pending' | 'issued' | 'failed';

/** Everything the order worker needs to sign, fixed when the order is accepted. */
export interface SignRequest {
  csr: string; // PEM
  subject: CertificateJson['subject'];
  algorithm: string | null;
  notAfter: string | null; // ISO datetime, aware
  extensions: Extension[];
  profile: string;
  autogenerated: boolean;
  keyBackendOptions: Record<string, unknown>;
}

export interface OrderRecord {
  id: number;
  created: Date;
  updated: Date;
  slug: string;
  caId: number;
  userId: number;
  status: OrderStatus;
  /** Serial of the issued certificate once `issued`. */
  certificateSerial: string | null;
  certificateId: number | null;
  /** Human-readable reason once `failed`; null otherwise. */
  error: string | null;
  request: SignRequest;
  /** Reserved for multi-instance workers: who holds the order and until when. */
  leaseOwner: string | null;
  leaseExpires: Date | null;
}

/** What a new order is made of; the store adds the slug, the status and the timestamps. */
export type NewOrder = Pick<OrderRecord, 'caId' | 'userId' | 'request'> & {
  /**
   * Written leased to the runner that was told about it (`OrderRunner.leaseOwner`): until `expires`
   * other instances' runners leave it to that one (docs/DESIGN.md "Orders").
   */
  lease?: { owner: string; expires: Date };
};

export interface UserRecord extends ApiUser {
  passwordHash: string;
  permissions: Permission[];
  updated: Date;
}

export interface CaFilter {
  enabled?: boolean;
  apiEnabled?: boolean;
  /** Only CAs valid at this instant (not_before < t <= not_after). */
  validAt?: Date;
}

export interface CertificateFilter {
  caId: number;
  /** Include certificates outside their validity window (default: only those valid at `now`). */
  includeExpired?: boolean;
  includeRevoked?: boolean;
  includeAutogenerated?: boolean;
  profile?: string;
  now?: Date;
  /** Keyset pagination: return rows with id > afterId, at most `limit` rows. */
  afterId?: number;
  limit?: number;
}

/** The persistence port. All methods are atomic; `transaction` groups several into one. */
export interface Store {
  migrate(): Promise<void>;
  close(): Promise<void>;
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T>;

  insertCa(ca: NewCa): Promise<CaRecord>;
  getCa(id: number): Promise<CaRecord | null>;
  findCaBySerial(serial: string): Promise<CaRecord | null>;
  findCaByName(name: string): Promise<CaRecord | null>;
  listCas(filter?: CaFilter): Promise<CaRecord[]>;
  updateCa(id: number, patch: CaPatch): Promise<CaRecord>;
  revokeCa(id: number, reason: string, compromised: Date | null, when: Date): Promise<CaRecord>;

  insertCertificate(cert: NewCertificate): Promise<CertificateRecord>;
  findCertificate(caId: number, serial: string): Promise<CertificateRecord | null>;
  /** By serial across all CAs (CLI). */
  findCertificateBySerial(serial: string): Promise<CertificateRecord[]>;
  listCertificates(filter: CertificateFilter): Promise<CertificateRecord[]>;
  revokeCertificate(id: number, reason: string, compromised: Date | null, when: Date): Promise<CertificateRecord>;

  createOrder(order: NewOrder): Promise<OrderRecord>;
  getOrder(slug: string): Promise<OrderRecord | null>;
  /**
   * Claim up to `limit` pending orders for processing (`FOR UPDATE SKIP LOCKED`); call inside
   * `transaction` so that the claim lasts until the order is finished.
   */
  claimPendingOrders(limit: number, leaseOwner?: string): Promise<OrderRecord[]>;
  markOrderIssued(orderId: number, certificateId: number): Promise<OrderRecord>;
  markOrderFailed(orderId: number, error: string): Promise<OrderRecord>;

  createUser(username: string, passwordHash: string, permissions: Permission[]): Promise<UserRecord>;
  findUser(username: string): Promise<UserRecord | null>;
  getUserById(id: number): Promise<UserRecord | null>;
  updateUser(id: number, patch: { passwordHash?: string; permissions?: Permission[] }): Promise<UserRecord>;
}

/**
 * Optional store capability: tell in-process caches at once when a user row changed (password,
 * permissions, creation). Listeners run after the change is committed, so a cache that re-reads on
 * the notification sees the new row. Changes made by other processes are not reported: caches bound
 * that staleness with a TTL instead.
 */
export interface UserChangeEvents {
  /** Subscribe; returns the function that unsubscribes. */
  onUserChanged(listener: (userId: number) => void): () => void;
}

export function hasUserChangeEvents<S extends object>(store: S): store is S & UserChangeEvents {
  return typeof (store as Partial<UserChangeEvents>).onUserChanged === 'function';
}

/**
 * Optional store capability: tell in-process caches when a CA row changed (inserted, updated,
 * revoked), after the commit — like `UserChangeEvents`.
 */
export interface CaChangeEvents {
  /** Subscribe; returns the function that unsubscribes. */
  onCaChanged(listener: (caId: number) => void): () => void;
}

export function hasCaChangeEvents<S extends object>(store: S): store is S & CaChangeEvents {
  return typeof (store as Partial<CaChangeEvents>).onCaChanged === 'function';
}

/**
 * Optional store capability: tell in-process caches when a certificate row changed (revoked), after
 * the commit — like `UserChangeEvents`. New certificates need no event: caches never keep misses.
 */
export interface CertificateChangeEvents {
  /** Subscribe; returns the function that unsubscribes. */
  onCertificateChanged(listener: (certificateId: number) => void): () => void;
}

/**
 * Optional store capability for the order worker: sign a batch of orders outside any transaction,
 * then store it with a few statements in one short transaction, instead of several per order while
 * holding locks. A worker falls back to the per-order methods when a store lacks it.
 */
export interface BatchOrderStore {
  /**
   * Pending orders nobody else holds a live lease on (`leaseOwner`'s own count as free), oldest
   * first, without locking anything.
   */
  listPendingOrders(limit: number, leaseOwner?: string): Promise<OrderRecord[]>;
  /**
   * Inside `transaction`: lock those of these orders that are still pending and not locked or leased
   * by another worker (`FOR UPDATE SKIP LOCKED`); returns their ids. The locks last until the
   * transaction ends.
   */
  claimOrdersById(ids: number[], leaseOwner?: string): Promise<number[]>;
  /** Insert certificates in one statement; returns their ids in input order. */
  insertCertificateIds(certs: NewCertificate[]): Promise<number[]>;
  /**
   * Optional fast path, atomic on its own (no `transaction` needed): for the orders still claimable,
   * store their certificates and mark them issued (`updated` = `when`). Returns the orders stored,
   * with their certificate ids; the others were taken by another worker and stay as it left them.
   */
  issueOrders?(
    issued: { orderId: number; certificate: NewCertificate }[],
    when: Date,
    leaseOwner?: string,
  ): Promise<{ orderId: number; certificateId: number }[]>;
  /** Mark orders issued (order id → certificate id) in one statement; `when` becomes their `updated`. */
  markOrdersIssued(issued: { orderId: number; certificateId: number }[], when?: Date): Promise<void>;
}

export function hasBatchOrders<S extends object>(store: S): store is S & BatchOrderStore {
  const s = store as Partial<BatchOrderStore>;
  return (
    typeof s.listPendingOrders === 'function' &&
    typeof s.claimOrdersById === 'function' &&
    typeof s.insertCertificateIds === 'function' &&
    typeof s.markOrdersIssued === 'function'
  );
}

// ---------------------------------------------------------------------------------------------------
// Order processing

export interface OrderRunner {
  /** Begin processing (including orders left pending by an earlier process). */
  start(): Promise<void>;
  /** Stop taking new orders; resolves when in-flight orders are finished. */
  stop(): Promise<void>;
  /**
   * Hint that a new order exists (a worker may also poll). The sign endpoint passes the order it has
   * just written, so that a runner in this process need not read it back.
   */
  notify(order?: OrderRecord): void;
  /**
   * Optional: this runner's name, unique per process. The sign endpoint then writes the orders it
   * notifies this runner of leased to it for a few seconds, so that the runners of other instances on
   * the same database leave them alone meanwhile: without that, every instance would read and sign
   * every fresh order and all but one would throw their work away (docs/DESIGN.md "Orders").
   */
  readonly leaseOwner?: string;
}

/**
 * Optional runner capability: tell listeners in this process when an order is finished (`issued` or
 * `failed`), after the commit, with the order as stored. The API keeps finished orders in memory from
 * these (a finished order never changes) and lets a sign request wait for its order.
 */
export interface OrderSettledEvents {
  /** Subscribe; returns the function that unsubscribes. */
  onOrderSettled(listener: (order: OrderRecord) => void): () => void;
}

// ---------------------------------------------------------------------------------------------------
// Store errors: typed so that callers map them to 400/404 without knowing the database.

export type StoreEntity = 'ca' | 'certificate' | 'order' | 'user';

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

// The database failed rather than a rule refusing (retrying may succeed); in its own file to keep this one short.
export { isConnectionLost, StoreUnavailableError } from './ports-store-errors';
export type { LoginAttemptLimiter } from './ports-login-limits';

// Revocation serving (CRLs, OCSP): an optional store capability, in its own file.
export * from './ports-revocation';
