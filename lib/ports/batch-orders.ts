/** The store capability the order runner's batches write with. */
import type { NewCertificate, OrderRecord } from './records';

/**
 * Optional store capability for the order worker: sign a batch of orders outside any transaction,
 * then store it with one statement for the signed orders and one for the failed ones, instead of
 * several per order while holding locks. A worker falls back to the per-order methods when a store
 * lacks it.
 */
export interface BatchOrderStore {
  /**
   * Pending orders nobody else holds a live lease on (`leaseOwner`'s own count as free), oldest
   * first, without locking anything.
   */
  listPendingOrders(limit: number, leaseOwner?: string): Promise<OrderRecord[]>;
  /**
   * Atomic on its own (no `transaction` needed): for the orders still claimable — pending, and not
   * locked or leased by another worker —, store their certificates and mark them issued (`updated` =
   * `when`). Returns the orders stored, with their certificate ids; the others were taken by another
   * worker and stay as it left them.
   */
  issueOrders(
    issued: { orderId: number; certificate: NewCertificate }[],
    when: Date,
    leaseOwner?: string,
  ): Promise<{ orderId: number; certificateId: number }[]>;
  /**
   * Atomic on its own: the orders still claimable marked failed with their reason. Returns those
   * orders as now stored; the others stay as another worker left them.
   */
  failOrders(failed: { orderId: number; reason: string }[], leaseOwner?: string): Promise<OrderRecord[]>;
}

export function hasBatchOrders<S extends object>(store: S): store is S & BatchOrderStore {
  const s = store as Partial<BatchOrderStore>;
  return typeof s.listPendingOrders === 'function' && typeof s.issueOrders === 'function' && typeof s.failOrders === 'function';
}
