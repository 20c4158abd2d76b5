/**
 * `AcmeStore` (lib/ports/acme-store.ts) over knex: the ACME server's own small store, offered by the
 * knex store as `store.acme`. It shares the knex store's connection and, for the one write that
 * crosses into the certificates (`completeIssuance`), its transaction — so the certificate, its
 * `certificate.issued` event (naming the ACME account) and the order's `valid` commit together, and
 * the caches hear of the certificate as they hear of every other.
 */
import type { Knex } from 'knex';
import {
  StoreConflictError,
  type AcmeAccountRecord,
  type AcmeAuthorizationRecord,
  type AcmeCaPolicy,
  type AcmeEabKeyRecord,
  type AcmeErrorDocument,
  type AcmeOrderRecord,
  type AcmeStore,
  type Actor,
  type CertificateRecord,
  type ClaimedIssuance,
  type ClaimedValidation,
  type NewAcmeAccount,
  type NewAcmeOrder,
  type NewCertificate,
  type SignRequest,
  type Store,
  type ValidationResult,
} from '../../../../lib/ports';
import { mappingErrors } from '../errors';
import * as accounts from './accounts';
import * as authorizations from './authorizations';
import * as orders from './orders';
import * as policies from './policies';
import * as work from './work';

/** What the ACME store needs of the knex store it belongs to. */
export interface CertificateSide {
  actingAs(actor: Actor): Pick<Store, 'transaction'>;
  /** The knex a store bound by `transaction` runs on. */
  knexOf(tx: Store): Knex;
}

export class KnexAcmeStore implements AcmeStore {
  constructor(
    private readonly db: Knex,
    private readonly side: CertificateSide,
  ) {}

  private atomically<T>(fn: (trx: Knex) => Promise<T>): Promise<T> {
    return mappingErrors(() => (this.db.isTransaction ? fn(this.db) : this.db.transaction(fn)));
  }

  createAccount(account: NewAcmeAccount): Promise<{ account: AcmeAccountRecord; created: boolean }> {
    return this.atomically((trx) => accounts.createAccount(trx, account));
  }
  listAccounts(caId: number): Promise<AcmeAccountRecord[]> {
    return mappingErrors(() => accounts.listAccounts(this.db, caId));
  }
  policy(caId: number): Promise<AcmeCaPolicy> {
    return mappingErrors(() => policies.policy(this.db, caId));
  }
  setPolicy(caId: number, patch: Partial<AcmeCaPolicy>): Promise<AcmeCaPolicy> {
    return this.atomically((trx) => policies.setPolicy(trx, caId, patch));
  }
  createEabKey(key: { kid: string; caId: number; sealed: unknown }): Promise<AcmeEabKeyRecord> {
    return mappingErrors(() => policies.createEabKey(this.db, key));
  }
  findEabKey(caId: number, kid: string): Promise<AcmeEabKeyRecord | null> {
    return mappingErrors(() => policies.findEabKey(this.db, caId, kid));
  }
  findAccountByThumbprint(caId: number, thumbprint: string): Promise<AcmeAccountRecord | null> {
    return mappingErrors(() => accounts.findAccountByThumbprint(this.db, caId, thumbprint));
  }
  findAccount(caId: number, slug: string): Promise<AcmeAccountRecord | null> {
    return mappingErrors(() => accounts.findAccount(this.db, caId, slug));
  }
  countAccountsFrom(remoteAddress: string, since: Date): Promise<number> {
    return mappingErrors(() => accounts.countAccountsFrom(this.db, remoteAddress, since));
  }
  updateAccount(
    id: number,
    patch: { contact?: string[]; termsOfServiceAgreed?: boolean; status?: 'deactivated' },
  ): Promise<AcmeAccountRecord> {
    return this.atomically((trx) => accounts.updateAccount(trx, id, patch));
  }
  changeAccountKey(id: number, jwk: Record<string, string>, thumbprint: string): Promise<AcmeAccountRecord | null> {
    return mappingErrors(() => accounts.changeAccountKey(this.db, id, jwk, thumbprint));
  }

  createOrder(order: NewAcmeOrder): Promise<AcmeOrderRecord> {
    return this.atomically((trx) => orders.createOrder(trx, order));
  }
  findOrder(caId: number, slug: string): Promise<AcmeOrderRecord | null> {
    return mappingErrors(() => orders.findOrder(this.db, caId, slug));
  }
  listOrders(accountId: number, page: { beforeId?: number; limit: number }): Promise<{ slugs: string[]; nextBeforeId: number | null }> {
    return mappingErrors(() => orders.listOrders(this.db, accountId, page));
  }
  countOrdersSince(accountId: number, since: Date): Promise<number> {
    return mappingErrors(() => orders.countOrdersSince(this.db, accountId, since));
  }
  findAuthorization(caId: number, slug: string): Promise<AcmeAuthorizationRecord | null> {
    return mappingErrors(() => authorizations.findAuthorization(this.db, caId, slug));
  }
  findAuthorizationByChallenge(caId: number, slug: string): Promise<AcmeAuthorizationRecord | null> {
    return mappingErrors(() => authorizations.findAuthorizationByChallenge(this.db, caId, slug));
  }
  deactivateAuthorization(id: number): Promise<AcmeAuthorizationRecord> {
    return this.atomically((trx) => authorizations.deactivateAuthorization(trx, id));
  }

  startValidation(challengeId: number, now: Date): Promise<void> {
    return mappingErrors(() => work.startValidation(this.db, challengeId, now));
  }
  claimValidations(owner: string, leaseMs: number, limit: number): Promise<ClaimedValidation[]> {
    return mappingErrors(() => work.claimValidations(this.db, owner, leaseMs, limit));
  }
  recordValidation(challengeId: number, result: ValidationResult): Promise<void> {
    return this.atomically((trx) => work.recordValidation(trx, challengeId, result));
  }
  nextValidationDue(): Promise<Date | null> {
    return mappingErrors(() => work.nextValidationDue(this.db));
  }

  startIssuance(orderId: number, request: SignRequest, owner: string, leaseMs: number): Promise<boolean> {
    return mappingErrors(() => work.startIssuance(this.db, orderId, request, owner, leaseMs));
  }
  claimIssuances(owner: string, leaseMs: number, limit: number): Promise<ClaimedIssuance[]> {
    return mappingErrors(() => work.claimIssuances(this.db, owner, leaseMs, limit));
  }
  completeIssuance(orderId: number, certificate: NewCertificate, actor: Actor): Promise<CertificateRecord> {
    return this.side.actingAs(actor).transaction(async (tx) => {
      const stored = await tx.insertCertificate(certificate);
      if (!(await mappingErrors(() => work.markIssued(this.side.knexOf(tx), orderId, stored.id)))) {
        // Another runner finished (or failed) the order meanwhile: this certificate must not exist.
        throw new StoreConflictError('The ACME order is no longer being issued.', 'order', 'status');
      }
      return stored;
    });
  }
  failIssuance(orderId: number, problem: AcmeErrorDocument, retryAt: Date | null): Promise<void> {
    return mappingErrors(() => work.failIssuance(this.db, orderId, problem, retryAt));
  }

  expire(now: Date): Promise<number> {
    return this.atomically((trx) => orders.expire(trx, now));
  }
  findOrderOfCertificate(certificateId: number): Promise<AcmeOrderRecord | null> {
    return mappingErrors(() => orders.findOrderOfCertificate(this.db, certificateId));
  }
}
