/** The store capability the order runner's batches write with. */
import type { NewCertificate, OrderRecord } from './records';

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
