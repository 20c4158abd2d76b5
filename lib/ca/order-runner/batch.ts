/**
 * The batch path: up to `batchSize` orders in three steps, so that no lock is held and the database
 * is free while certificates are signed:
 *  1. read the pending orders and their CAs (no transaction, no lock);
 *  2. sign them all at once (a signing failure is that order's `failed` reason);
 *  3. lock those still pending (another instance may have taken some: their certificates are dropped
 *     unstored, as if a transaction had rolled back), insert the certificates and mark the orders —
 *     with one statement when every order was signed (`issueOrders`), else in one short transaction
 *     that also records the failures.
 * If the database refuses anything in step 3, the transaction rolls back as a whole and the runner
 * redoes those orders one per transaction (single-order.ts), which isolates the order at fault.
 * A file of its own because the two paths hold opposite rules — here signing happens outside any
 * transaction, there inside it — and each is easier to check without the other beside it.
 */
import { signOrder, storeClaimedOrders, storeSignedOrders, type SignedOrder } from '../issuance/order-store';
import { hasBatchOrders, isConnectionLost, type CaRecord, type NewCertificate, type OrderRecord } from '../../ports';
import { isStoreError, reasonOf, type RunnerContext } from './runner-context';

/** What signing one order of a batch came to. */
type Outcome = { order: OrderRecord; certificate: NewCertificate } | { order: OrderRecord; reason: string; error: unknown };

/** The order as `markOrdersIssued` left it in the database. */
function issuedOrder(order: OrderRecord, certificateId: number, certificateSerial: string, when: Date): OrderRecord {
  return { ...order, status: 'issued', certificateId, certificateSerial, error: null, leaseOwner: null, leaseExpires: null, updated: when };
}

/** One batch; `ok: false` asks the runner to take `claimed` orders one per transaction next. */
export async function processOrderBatch(c: RunnerContext): Promise<{ ok: boolean; claimed: number }> {
  const { store, intake } = c;
  let claimed = 0;
  let settled: OrderRecord[] = [];
  let taken: OrderRecord[] = [];
  try {
    if (!hasBatchOrders(store)) throw new Error('the store cannot finish batches');
    const candidates = await intake.take(store, c.leaseOwner);
    taken = candidates;
    if (candidates.length === 0) return { ok: true, claimed: 0 };
    const cas = new Map<number, CaRecord | null>();
    for (const order of candidates) if (!cas.has(order.caId)) cas.set(order.caId, await store.getCa(order.caId));
    // All orders at once: signatures that run on the thread pool (RSA, see the key backend) then
    // use every core while this thread builds the next certificate.
    const outcomes = await Promise.all(
      candidates.map(async (order): Promise<Outcome> => {
        const ca = cas.get(order.caId) ?? null;
        if (!ca) return { order, reason: 'The certificate authority no longer exists.', error: null };
        try {
          return { order, certificate: await signOrder(c.signing, ca, order) };
        } catch (e) {
          return { order, error: e, reason: reasonOf(e) };
        }
      }),
    );
    const signed = outcomes.filter((o): o is Extract<Outcome, { certificate: NewCertificate }> => 'certificate' in o);
    if (signed.length === outcomes.length && store.issueOrders) {
      // Every order signed: one statement stores them all (no transaction round trips).
      const when = new Date();
      const stored = await storeSignedOrders(store, signed, when, c.leaseOwner);
      const byOrder = new Map(signed.map((o) => [o.order.id, o]));
      claimed = stored.length;
      settled = stored.map(({ orderId, certificateId }) => {
        const { order, certificate } = byOrder.get(orderId) as (typeof signed)[number];
        return issuedOrder(order, certificateId, certificate.serial, when);
      });
    } else {
      await store.transaction(async (tx) => {
        if (!hasBatchOrders(tx)) throw new Error('the store bound to the transaction cannot finish batches');
        const mine = new Set(
          await tx.claimOrdersById(
            candidates.map((o) => o.id),
            c.leaseOwner,
          ),
        );
        claimed = mine.size;
        const issued: SignedOrder[] = [];
        const failed: { order: OrderRecord; reason: string }[] = [];
        for (const outcome of outcomes) {
          if (!mine.has(outcome.order.id)) continue;
          if ('certificate' in outcome) {
            issued.push(outcome);
          } else {
            if (isStoreError(outcome.error)) throw outcome.error;
            failed.push(outcome);
          }
        }
        const when = new Date();
        const ids = await storeClaimedOrders(tx, issued, when);
        settled = issued.map(({ order, certificate }, i) => issuedOrder(order, ids[i], certificate.serial, when));
        for (const { order, reason } of failed) settled.push(await tx.markOrderFailed(order.id, reason));
      });
    }
    c.announce(settled);
    return { ok: true, claimed };
  } catch (e) {
    if (isConnectionLost(e)) throw e; // an outage: the work loop backs off (lib/work/loop.ts); nothing is counted
    c.logError('express-ca-api: a batch of orders failed; retrying them one per transaction', e);
    // Its orders are still pending and no longer handed over: the batches after the single orders
    // must find the rest of them in the database (order-intake.ts).
    intake.listSoon();
    return { ok: false, claimed: Math.max(claimed, 1) };
  } finally {
    intake.release(taken);
  }
}
