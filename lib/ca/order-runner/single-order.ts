/**
 * The one-order path: claim one pending order (`FOR UPDATE SKIP LOCKED`), then sign it with no lock
 * held, then store the certificate and mark the order issued in one transaction. Slower than a
 * batch, but it isolates an order the database refuses: after `maxAttempts` failed attempts that
 * order is marked failed and the others go on. The runner takes this path for stores without
 * `BatchOrderStore` and after a batch the database refused (lanes.ts).
 *
 * Signing happens between the two transactions, as the issuing authority requires (docs/DESIGN.md
 * "Issuing authority"): its intent is committed first, and a key that takes long (an HSM) holds no
 * row lock. Another runner that takes the order meanwhile meets the order's intent and signs the same
 * TBSCertificate; the first certificate stored is the order's, the other transaction is refused.
 */
import { issueClaimedOrder, signOrder, takeIssuedCertificate } from '../issuance/order-store';
import { IssuanceTaken } from '../issuance/sign';
import { isConnectionLost, type CaRecord, type OrderRecord } from '../../ports';
import { isStoreError, reasonOf, type RunnerContext } from './runner-context';

/** What the claim came to: nothing to do, an order settled already, or one to sign. */
type Claim = null | { settled: OrderRecord } | { order: OrderRecord; ca: CaRecord };

/** Claim and finish one order. False when there was none. */
export async function processOneOrder(c: RunnerContext): Promise<boolean> {
  const { store, attempts, maxAttempts } = c;
  let claimed: OrderRecord | null = null;
  try {
    const claim: Claim = await store.transaction(async (tx) => {
      const [order] = await tx.claimPendingOrders(1, c.leaseOwner);
      if (!order) return null;
      claimed = order;
      if ((attempts.get(order.id) ?? 0) >= maxAttempts) {
        attempts.delete(order.id);
        return { settled: await tx.markOrderFailed(order.id, 'Could not sign certificate: the database refused to store it.') };
      }
      const ca = await tx.getCa(order.caId);
      if (!ca) {
        attempts.delete(order.id);
        return { settled: await tx.markOrderFailed(order.id, 'The certificate authority no longer exists.') };
      }
      return { order, ca };
    });
    if (claim === null) return false;
    if ('settled' in claim) {
      c.announce([claim.settled]);
      return true;
    }
    const settled = await signAndStore(c, claim.order, claim.ca);
    attempts.delete(claim.order.id);
    if (settled === ANOTHER_RUNNER) return false; // its instance signs it: nothing of ours is left to do now
    c.announce([settled]);
    return true;
  } catch (e) {
    // An outage is not the order's fault: not counted against it; the work loop backs off (lib/work/loop.ts).
    if (isConnectionLost(e)) throw e;
    const order = claimed as OrderRecord | null;
    if (order) attempts.set(order.id, (attempts.get(order.id) ?? 0) + 1);
    c.logError(`express-ca-api: processing order ${order ? order.slug : '(claim)'} failed`, e);
    return order !== null; // try again (the attempt counter ends it); a failed claim waits for the poll
  }
}

/** `signAndStore`'s answer when another runner is signing the order (its intent is young and pending). */
const ANOTHER_RUNNER = Symbol('another runner');

/** Sign `order` (no lock held) and store it; a signing refusal fails the order with its reason. Store errors are thrown. */
async function signAndStore(c: RunnerContext, order: OrderRecord, ca: CaRecord): Promise<OrderRecord | typeof ANOTHER_RUNNER> {
  const { store } = c;
  try {
    const certificate = await signOrder(c.signing, ca, order);
    return await issueClaimedOrder(c.signing, store, order, certificate);
  } catch (e) {
    if (isStoreError(e)) throw e; // counted and retried
    // Another runner signs the order, or has stored its certificate (the order takes it if still pending).
    if (e instanceof IssuanceTaken) {
      const issued = e.intent.certificateId === null ? null : await takeIssuedCertificate(store, order, e.intent.certificateId);
      return issued ?? ANOTHER_RUNNER;
    }
    return store.markOrderFailed(order.id, reasonOf(e));
  }
}
