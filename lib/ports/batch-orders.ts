/** The store capability the order runner writes with. */
import type { NewCertificate, OrderRecord } from './records';

/**
 * Optional store capability for the order runner (lib/ca/order-runner): orders are claimed through
 * their `rest_order` jobs (`JobStore.claim`, lib/ports/jobs.ts), signed outside any transaction, then
 * stored with one statement for the signed orders and one for the failed ones, each of which also
 * completes the orders' jobs — only while `leaseOwner` holds them (a runner that lost a job to another
 * writes nothing for its order).
 */
export interface BatchOrderStore {
  /** Those of the orders `ids` names that are still pending (a plain read: nothing is locked). */
  pendingOrders(ids: readonly number[]): Promise<OrderRecord[]>;
  /**
   * Atomic on its own (no `transaction` needed): for the pending orders whose job `leaseOwner` holds,
   * store their certificates, mark them issued (`updated` = `when`) and complete their jobs. Returns
   * the orders stored, with their certificate ids; the others stay as their job's holder left them.
   */
  issueOrders(
    issued: { order: OrderRecord; certificate: NewCertificate }[],
    when: Date,
    leaseOwner: string,
  ): Promise<{ orderId: number; certificateId: number }[]>;
  /**
   * Atomic on its own: the pending orders whose job `leaseOwner` holds marked failed with their
   * reason, and their jobs completed (a REST order's failure is the order's state, not its job's).
   * Returns those orders as now stored.
   */
  failOrders(failed: { order: OrderRecord; reason: string }[], leaseOwner: string): Promise<OrderRecord[]>;
  /** The jobs of these orders that `leaseOwner` holds let go, so that any runner may claim them at once. */
  releaseOrderJobs(orderIds: readonly number[], leaseOwner: string): Promise<void>;
}

export function hasBatchOrders<S extends object>(store: S): store is S & BatchOrderStore {
  const s = store as Partial<BatchOrderStore>;
  return (
    typeof s.pendingOrders === 'function' &&
    typeof s.issueOrders === 'function' &&
    typeof s.failOrders === 'function' &&
    typeof s.releaseOrderJobs === 'function'
  );
}
