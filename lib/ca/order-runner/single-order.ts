/**
 * The one-order path: claim one pending order (`FOR UPDATE SKIP LOCKED`), sign it and record the
 * outcome in the same transaction. Slower than a batch, but it isolates an order the database refuses:
 * after `maxAttempts` failed transactions that order is marked failed and the others go on. The
 * runner takes this path for stores without `BatchOrderStore` and after a batch the database refused
 * (lanes.ts).
 */
import { issueClaimedOrder } from '../issuance/order-store';
import { isConnectionLost, type OrderRecord } from '../../ports';
import { isStoreError, reasonOf, type RunnerContext } from './runner-context';

/** Claim and finish one order, alone in its transaction. False when there was none. */
export async function processOneOrder(c: RunnerContext): Promise<boolean> {
  const { store, attempts, maxAttempts } = c;
  let claimed: OrderRecord | null = null;
  let settled: OrderRecord | null = null;
  try {
    const found = await store.transaction(async (tx) => {
      const [order] = await tx.claimPendingOrders(1, c.leaseOwner);
      if (!order) return false;
      claimed = order;
      if ((attempts.get(order.id) ?? 0) >= maxAttempts) {
        settled = await tx.markOrderFailed(order.id, 'Could not sign certificate: the database refused to store it.');
        attempts.delete(order.id);
        return true;
      }
      const ca = await tx.getCa(order.caId);
      let reason: string;
      if (!ca) reason = 'The certificate authority no longer exists.';
      else {
        try {
          settled = await issueClaimedOrder(c.signing, tx, ca, order);
          attempts.delete(order.id);
          return true;
        } catch (e) {
          if (isStoreError(e)) throw e; // the transaction is unusable; count it and retry
          reason = reasonOf(e);
        }
      }
      settled = await tx.markOrderFailed(order.id, reason);
      attempts.delete(order.id);
      return true;
    });
    if (settled) c.announce([settled]);
    return found;
  } catch (e) {
    // An outage is not the order's fault: not counted against it; the work loop backs off (lib/work/loop.ts).
    if (isConnectionLost(e)) throw e;
    const order = claimed as OrderRecord | null;
    if (order) attempts.set(order.id, (attempts.get(order.id) ?? 0) + 1);
    c.logError(`express-ca-api: processing order ${order ? order.slug : '(claim)'} failed`, e);
    return order !== null; // try again (the attempt counter ends it); a failed claim waits for the poll
  }
}
