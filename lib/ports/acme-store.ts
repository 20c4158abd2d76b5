/**
 * The ACME server's own small store (docs/guides/acme.md; like smallstep's `acme.DB`): accounts, orders,
 * authorizations and challenges (RFC 8555 §7.1), and the durable work on them — validations and
 * issuance — claimed by runners on any instance. A store offers it as `store.acme` (`hasAcmeStore`).
 *
 * The store knows no ACME rule: RFC 8555's state machines (§7.1.6) are lib/acme/state-machine.ts,
 * which decides each change as conditional updates (`AcmeStateChange`: this row, from these
 * statuses, to that one); the store applies one change atomically, in one statement, so that the
 * order, its authorizations and its challenges never disagree.
 */
import type { AcmeChallengeType, AcmeIdentifier } from './acme';
import type {
  AcmeAccountStatus,
  AcmeAuthorizationStatus,
  AcmeBulkChange,
  AcmeChallengeStatus,
  AcmeErrorDocument,
  AcmeOrderStatus,
  AcmeOrderStep,
  AcmeStateChange,
  AcmeValidationStart,
} from './acme-states';
import type { CertificateRecord, NewCertificate, SignRequest } from './records';

export interface AcmeAccountRecord {
  id: number;
  slug: string;
  caId: number;
  status: AcmeAccountStatus;
  /** The account's public key (RFC 7517 members only: kty, crv, x, y, n, e). */
  jwk: Record<string, string>;
  /** RFC 7638 SHA-256 thumbprint of `jwk`, base64url. */
  thumbprint: string;
  contact: string[];
  termsOfServiceAgreed: boolean;
  /** The external account binding key that bound this account (RFC 8555 §7.3.4), if any. */
  eabKid: string | null;
  created: Date;
}

export interface NewAcmeAccount {
  caId: number;
  jwk: Record<string, string>;
  thumbprint: string;
  contact: string[];
  termsOfServiceAgreed: boolean;
  eabKid?: string | null;
  remoteAddress?: string | null;
}

export interface AcmeOrderRecord {
  id: number;
  slug: string;
  accountId: number;
  caId: number;
  status: AcmeOrderStatus;
  expires: Date;
  notBefore: Date | null;
  notAfter: Date | null;
  /** As requested: a wildcard keeps its `*.` here (RFC 8555 §7.1.3). */
  identifiers: AcmeIdentifier[];
  /** Slugs of the order's authorizations, in the order of `identifiers`. */
  authorizations: string[];
  /** The sign request stored at finalize, until the certificate exists. */
  request: SignRequest | null;
  certificateId: number | null;
  /** Serial of the certificate once `valid`. */
  certificateSerial: string | null;
  error: AcmeErrorDocument | null;
  created: Date;
  /** The address the order was finalized from (Express's `req.ip`), once finalized: its certificate's requester's. */
  sourceAddress?: string | null;
}

export interface AcmeChallengeRecord {
  id: number;
  slug: string;
  authorizationId: number;
  type: AcmeChallengeType;
  token: string;
  status: AcmeChallengeStatus;
  validated: Date | null;
  error: AcmeErrorDocument | null;
  attempts: number;
}

export interface AcmeAuthorizationRecord {
  id: number;
  slug: string;
  orderId: number;
  /** Owner and CA of the order, so that a handler checks who may read it in one lookup. */
  accountId: number;
  caId: number;
  /** Without the `*.` of a wildcard (RFC 8555 §7.1.4). */
  identifier: AcmeIdentifier;
  wildcard: boolean;
  status: AcmeAuthorizationStatus;
  expires: Date;
  challenges: AcmeChallengeRecord[];
}

/** What a new order is made of; the store adds slugs and timestamps. */
export interface NewAcmeOrder {
  accountId: number;
  caId: number;
  expires: Date;
  notBefore: Date | null;
  notAfter: Date | null;
  identifiers: AcmeIdentifier[];
  /** One per identifier, in the same order: the identifier to authorize and its challenges' types and tokens. */
  authorizations: { identifier: AcmeIdentifier; wildcard: boolean; challenges: { type: AcmeChallengeType; token: string }[] }[];
}

/** An order and its certificate's DER (null until it has one). */
export interface OrderCertificate {
  order: AcmeOrderRecord;
  der: Buffer | null;
}

/** A validation claimed by a runner: the challenge and what checking it needs. */
export interface ClaimedValidation {
  challenge: AcmeChallengeRecord;
  identifier: AcmeIdentifier;
  /** The account key's thumbprint, for the key authorization (RFC 8555 §8.1). */
  thumbprint: string;
  orderId: number;
  authorizationSlug: string;
}

/** An order being issued, and its sign request (`findIssuance`). */
export interface PendingIssuance {
  order: AcmeOrderRecord;
  request: SignRequest;
}

export interface AcmeStore {
  /**
   * Insert, or find the account this key already has at this CA. With `eabKid`, the EAB key is bound
   * to the new account in the same transaction; a key already bound is a StoreConflictError.
   */
  createAccount(account: NewAcmeAccount): Promise<{ account: AcmeAccountRecord; created: boolean }>;
  listAccounts(caId: number): Promise<AcmeAccountRecord[]>;
  policy(caId: number): Promise<AcmeCaPolicy>;
  setPolicy(caId: number, patch: Partial<AcmeCaPolicy>): Promise<AcmeCaPolicy>;
  createEabKey(key: { kid: string; caId: number; sealed: unknown }): Promise<AcmeEabKeyRecord>;
  findEabKey(caId: number, kid: string): Promise<AcmeEabKeyRecord | null>;
  findAccountByThumbprint(caId: number, thumbprint: string): Promise<AcmeAccountRecord | null>;
  findAccount(caId: number, slug: string): Promise<AcmeAccountRecord | null>;
  countAccountsFrom(remoteAddress: string, since: Date): Promise<number>;
  /**
   * Contact or terms; `status` moves the account when it is in one of `from`, and then `cascade` its
   * orders and their authorizations, in the same transaction.
   */
  updateAccount(
    id: number,
    patch: { contact?: string[]; termsOfServiceAgreed?: boolean; status?: { from: readonly AcmeAccountStatus[]; to: AcmeAccountStatus } },
    cascade?: AcmeBulkChange,
  ): Promise<AcmeAccountRecord>;
  /** Key rollover (RFC 8555 §7.3.5): null when another account of the CA already has the new key. */
  changeAccountKey(id: number, jwk: Record<string, string>, thumbprint: string): Promise<AcmeAccountRecord | null>;

  /**
   * The order with its authorizations and challenges, atomically. With `limit`: nothing is written
   * (null) when the account has placed `max` orders since `since` (a rate limit, docs/guides/acme.md).
   */
  createOrder(order: NewAcmeOrder, limit?: { max: number; since: Date }): Promise<AcmeOrderRecord | null>;
  findOrder(caId: number, slug: string): Promise<AcmeOrderRecord | null>;
  /** The order and its certificate's DER (null until it has one): what a download needs, in one read. */
  findOrderCertificate(caId: number, slug: string): Promise<OrderCertificate | null>;
  /** The account's orders, newest first after `beforeId` (paged). */
  listOrders(accountId: number, page: { beforeId?: number; limit: number }): Promise<{ slugs: string[]; nextBeforeId: number | null }>;
  findAuthorization(caId: number, slug: string): Promise<AcmeAuthorizationRecord | null>;
  /** The authorization holding challenge `slug`. */
  findAuthorizationByChallenge(caId: number, slug: string): Promise<AcmeAuthorizationRecord | null>;

  /**
   * Start validating the challenge `slug` of CA `caId`, of an order of account `accountId` not past
   * its `expires`, as `start` says (lib/acme/state-machine.ts `onChallengeStart`), and in the same
   * statement its `acme_validation` job (lib/ports/jobs.ts), leased to `owner` for `leaseMs` so that
   * the caller validates it at once (and, should the caller die, another runner takes the job over
   * when the lease lapses). Null otherwise — unknown, another account's, not in those statuses — with
   * everything left as it is.
   */
  startValidation(
    challenge: { caId: number; slug: string; accountId: number },
    owner: string,
    leaseMs: number,
    now: Date,
    start: AcmeValidationStart,
  ): Promise<ClaimedValidation | null>;
  /** The challenge of id `challengeId` with what validating it needs (an `acme_validation` job's reference); null: none. */
  findValidation(challengeId: number): Promise<ClaimedValidation | null>;
  /** Apply a change of lib/acme/state-machine.ts in one statement. False: its first step did not apply (nothing changed). */
  applyChange(change: AcmeStateChange): Promise<boolean>;

  /** The order of id `orderId` (an `acme_issuance` job's reference) with its sign request; null: none, or no request. */
  findIssuance(orderId: number): Promise<PendingIssuance | null>;
  /**
   * Store the certificate as the order's with `order` applied, atomically (a StoreConflictError when the
   * step does not apply or the order has a certificate); its `certificate.issued` event names the
   * order's account (`{ type: 'acme_account', id, protocol: 'acme', address }`). The order's
   * `acme_issuance` job is done in the same statement.
   */
  completeIssuance(order: AcmeOrderStep, certificate: NewCertificate): Promise<CertificateRecord>;

  /** Apply `change` to the orders and authorizations past `expires` at `now`. Returns how many orders. */
  expire(now: Date, change: AcmeBulkChange): Promise<number>;
  /** The order that produced certificate `certificateId`, if it came through ACME. */
  findOrderOfCertificate(certificateId: number): Promise<AcmeOrderRecord | null>;
}

/**
 * What a CA allows through ACME beyond `acme_enabled` (docs/guides/acme.md): whether accounts need an
 * external account binding (RFC 8555 §7.3.4), and which names it issues for — DNS suffixes
 * (`example.internal` covers the name and everything under it) and IP networks (`10.0.0.0/8`). A
 * denied name is refused whatever the allow list says; with an allow list, only what it covers.
 */
export interface AcmeCaPolicy {
  eabRequired: boolean;
  allow: string[];
  deny: string[];
}

export const DEFAULT_ACME_POLICY: Readonly<AcmeCaPolicy> = Object.freeze({ eabRequired: false, allow: [], deny: [] });

/** An external account binding key: its MAC key is kept sealed (`SecretBox`), never as given. */
export interface AcmeEabKeyRecord {
  kid: string;
  caId: number;
  sealed: unknown;
  /** The account it bound, once used: each key binds one account. */
  accountId: number | null;
  created: Date;
}

/** Optional capability of an ACME store: hear of policy changes once committed (caches drop the CA's entry). */
export interface AcmePolicyChangeEvents {
  onAcmePolicyChanged(listener: (caId: number) => void): () => void;
}

/** Optional capability of an ACME store: hear of account changes (update, deactivation, key rollover) once committed. */
export interface AcmeAccountChangeEvents {
  onAcmeAccountChanged(listener: (accountId: number) => void): () => void;
}

/** Optional store capability: the ACME server's store. */
export interface AcmeStoreProvider {
  readonly acme: AcmeStore;
}

export function hasAcmeStore<S extends object>(store: S): store is S & AcmeStoreProvider {
  const acme = (store as Partial<AcmeStoreProvider>).acme;
  return typeof acme === 'object' && acme !== null && typeof acme.createOrder === 'function';
}
