/**
 * `AcmeStore` (lib/ports/acme-store.ts) over knex: the ACME server's own small store, offered by the
 * knex store as `store.acme`, on its connection (or transaction).
 *
 * An ACME order is five requests, each of which used to cost several round trips to the database;
 * on a small machine those round trips were most of an order's cost (bench/acme). So every step of
 * an order is one statement where it can be (docs/DESIGN.md "ACME"): a new order with its
 * authorizations and challenges, starting a validation, each change lib/acme/state-machine.ts
 * decides (recording a validation's outcome, starting an issuance), storing the
 * certificate with the order made `valid` and its `certificate.issued` event (naming the account);
 * and the lookups of concurrent requests (the account, then what the request names) share one
 * statement per kind (grouped-reads.ts).
 *
 * Accounts made or deactivated, policies and external account binding keys record their events
 * (transaction-events.ts): a new account names itself; a deactivation names the store's actor (an
 * operator) or else the account itself; a policy or key names the store's actor.
 */
import type { Knex } from 'knex';
import {
  StoreConflictError,
  type AcmeAccountRecord,
  type Actor,
  type AcmeAuthorizationRecord,
  type AcmeCaPolicy,
  type AcmeEabKeyRecord,
  type AcmeAccountStatus,
  type AcmeBulkChange,
  type AcmeOrderRecord,
  type AcmeAccountChangeEvents,
  type AcmePolicyChangeEvents,
  type AcmeStore,
  type CertificateRecord,
  type ClaimedValidation,
  type PendingIssuance,
  type NewAcmeAccount,
  type NewAcmeOrder,
  type NewCertificate,
  type OrderCertificate,
  type AcmeOrderStep,
  type AcmeStateChange,
  type AcmeValidationStart,
} from '../../../../lib/ports';
import { mappingErrors } from '../errors';
import { writeWithEvents, type EventBatch, type RecordEvents } from '../transaction-events';
import { runOne, type AcmeGroups } from './grouped';
import * as accounts from './accounts';
import * as orders from './orders';
import * as policies from './policies';
import * as work from './work';

/** What the root store shares with the ACME stores of its transactions and actors. */
export interface AcmeHubs {
  /** Grouped statements; null in a transaction (a group would run outside it). */
  groups: AcmeGroups | null;
  /** Policy-change listeners (`onAcmePolicyChanged`). */
  policyListeners: Set<(caId: number) => void>;
  /** Account-change listeners (`onAcmeAccountChanged`). */
  accountListeners: Set<(accountId: number) => void>;
}

export class KnexAcmeStore implements AcmeStore, AcmePolicyChangeEvents, AcmeAccountChangeEvents {
  /** `queue`: the events of the store transaction `db` is bound to (null outside one); `actor`: who the store's writes name. */
  constructor(
    private readonly db: Knex,
    private readonly hubs: AcmeHubs,
    private readonly queue: EventBatch | null = null,
    private readonly actor: Actor | null = null,
  ) {}

  /** A grouped statement (grouped.ts). */
  private run<K extends keyof AcmeGroups>(kind: K, item: Parameters<typeof runOne<K>>[3]) {
    return mappingErrors(() => runOne(this.db, this.hubs.groups, kind, item));
  }

  onAcmeAccountChanged(listener: (accountId: number) => void): () => void {
    this.hubs.accountListeners.add(listener);
    return () => this.hubs.accountListeners.delete(listener);
  }

  /** Tell the listeners once `write` has committed (or, inside a transaction, once it is done). */
  private async announcing<T>(listeners: Set<(id: number) => void>, id: number, write: Promise<T>): Promise<T> {
    const result = await write;
    for (const listener of listeners) {
      try {
        listener(id);
      } catch {
        // A listener's failure must not turn a committed change into an error for the caller.
      }
    }
    return result;
  }

  onAcmePolicyChanged(listener: (caId: number) => void): () => void {
    this.hubs.policyListeners.add(listener);
    return () => this.hubs.policyListeners.delete(listener);
  }

  private atomically<T>(fn: (trx: Knex) => Promise<T>): Promise<T> {
    return mappingErrors(() => (this.db.isTransaction ? fn(this.db) : this.db.transaction(fn)));
  }

  /** A write that records events, in its own transaction or the store's (transaction-events.ts). */
  private writing<T>(work: (trx: Knex, record: RecordEvents) => Promise<T>): Promise<T> {
    return writeWithEvents(this.db, this.queue, this.actor, work);
  }

  createAccount(account: NewAcmeAccount): Promise<{ account: AcmeAccountRecord; created: boolean }> {
    return this.writing((trx, record) => accounts.createAccount(trx, account, record));
  }
  listAccounts(caId: number): Promise<AcmeAccountRecord[]> {
    return mappingErrors(() => accounts.listAccounts(this.db, caId));
  }
  policy(caId: number): Promise<AcmeCaPolicy> {
    return mappingErrors(() => policies.policy(this.db, caId));
  }
  setPolicy(caId: number, patch: Partial<AcmeCaPolicy>): Promise<AcmeCaPolicy> {
    return this.announcing(
      this.hubs.policyListeners,
      caId,
      this.writing((trx, record) => policies.setPolicy(trx, caId, patch, record)),
    );
  }
  createEabKey(key: { kid: string; caId: number; sealed: unknown }): Promise<AcmeEabKeyRecord> {
    return this.writing((trx, record) => policies.createEabKey(trx, key, record));
  }
  findEabKey(caId: number, kid: string): Promise<AcmeEabKeyRecord | null> {
    return mappingErrors(() => policies.findEabKey(this.db, caId, kid));
  }
  findAccountByThumbprint(caId: number, thumbprint: string): Promise<AcmeAccountRecord | null> {
    return mappingErrors(() => accounts.findAccountByThumbprint(this.db, caId, thumbprint));
  }
  findAccount(caId: number, slug: string): Promise<AcmeAccountRecord | null> {
    return this.run('account', { caId, slug });
  }
  countAccountsFrom(remoteAddress: string, since: Date): Promise<number> {
    return mappingErrors(() => accounts.countAccountsFrom(this.db, remoteAddress, since));
  }
  updateAccount(
    id: number,
    patch: { contact?: string[]; termsOfServiceAgreed?: boolean; status?: { from: readonly AcmeAccountStatus[]; to: AcmeAccountStatus } },
    cascade?: AcmeBulkChange,
  ): Promise<AcmeAccountRecord> {
    return this.announcing(
      this.hubs.accountListeners,
      id,
      this.writing((trx, record) => accounts.updateAccount(trx, id, patch, record, this.actor, cascade)),
    );
  }
  changeAccountKey(id: number, jwk: Record<string, string>, thumbprint: string): Promise<AcmeAccountRecord | null> {
    return this.announcing(
      this.hubs.accountListeners,
      id,
      mappingErrors(() => accounts.changeAccountKey(this.db, id, jwk, thumbprint)),
    );
  }

  createOrder(order: NewAcmeOrder, limit?: { max: number; since: Date }): Promise<AcmeOrderRecord | null> {
    return this.run('createOrder', { order, limit });
  }
  findOrder(caId: number, slug: string): Promise<AcmeOrderRecord | null> {
    return this.run('order', { caId, slug });
  }
  findOrderCertificate(caId: number, slug: string): Promise<OrderCertificate | null> {
    return this.run('orderCertificate', { caId, slug });
  }
  listOrders(accountId: number, page: { beforeId?: number; limit: number }): Promise<{ slugs: string[]; nextBeforeId: number | null }> {
    return mappingErrors(() => orders.listOrders(this.db, accountId, page));
  }
  findAuthorization(caId: number, slug: string): Promise<AcmeAuthorizationRecord | null> {
    return this.run('authorization', { caId, slug });
  }
  findAuthorizationByChallenge(caId: number, slug: string): Promise<AcmeAuthorizationRecord | null> {
    return this.run('authorizationByChallenge', { caId, slug });
  }

  startValidation(
    challenge: { caId: number; slug: string; accountId: number },
    owner: string,
    leaseMs: number,
    now: Date,
    start: AcmeValidationStart,
  ): Promise<ClaimedValidation | null> {
    return this.run('startValidation', { ...challenge, owner, leaseMs, now, start });
  }

  findValidation(challengeId: number): Promise<ClaimedValidation | null> {
    return mappingErrors(() => work.findValidation(this.db, challengeId));
  }
  applyChange(change: AcmeStateChange): Promise<boolean> {
    return this.run(change.challenge || change.authorization ? 'change' : 'orderChange', change);
  }
  findIssuance(orderId: number): Promise<PendingIssuance | null> {
    return mappingErrors(() => work.findIssuance(this.db, orderId));
  }
  /** The event names the order's account (migration 0009) — the `actor` the caller names — whoever stores it. */
  async completeIssuance(order: AcmeOrderStep, certificate: NewCertificate): Promise<CertificateRecord> {
    const stored = await this.run('completeIssuance', { order, certificate });
    // Another runner finished (or failed) the order meanwhile: this certificate was not stored.
    if (!stored) throw new StoreConflictError('The ACME order is no longer being issued.', 'order', 'status');
    return stored;
  }
  expire(now: Date, change: AcmeBulkChange): Promise<number> {
    return this.atomically((trx) => orders.expire(trx, now, change));
  }
  findOrderOfCertificate(certificateId: number): Promise<AcmeOrderRecord | null> {
    return mappingErrors(() => orders.findOrderOfCertificate(this.db, certificateId));
  }
}
