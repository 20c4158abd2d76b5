/**
 * The batch path: up to `batchSize` orders in three steps, so that no lock is held and the database
 * is free while certificates are signed:
 *  1. take the orders (order-intake.ts): handed over by the sign endpoint, their jobs leased to this
 *     runner when they were written, or claimed through their jobs (`JobStore.claim`) and read by id;
 *  2. sign them all at once, with no transaction open (a signing failure is that order's `failed` reason);
 *  3. store them with one statement for the signed orders (`issueOrders`: certificates inserted, orders
 *     issued, jobs done, events) and one for the failed ones (`failOrders`: orders failed, jobs done,
 *     events), each of which writes only the orders whose job this runner still holds — another
 *     instance may have taken some after their lease lapsed: their certificates are not issued, and
 *     their intents say so (each signature stays on record: docs/DESIGN.md "Issuing authority").
 * If the database refuses a statement, its orders are still pending: their jobs are let go and the
 * runner redoes orders one at a time as jobs (single-order.ts), which isolates the order at fault and
 * counts its attempts in its job.
 */
import { recordNotIssued } from '../issuance/issue';
import { signOrder, storeSignedOrders, takeIssuedCertificate } from '../issuance/order-store';
import { IssuanceTaken, type SignedCertificate } from '../issuance/sign';
import { isConnectionLost, type CaRecord, type OrderRecord } from '../../ports';
import { isStoreError, reasonOf, type RunnerContext } from './runner-context';

/** What signing one order of a batch came to: a certificate, a reason it failed, or one issued for it already. */
type Outcome =
  | { order: OrderRecord; certificate: SignedCertificate }
  | { order: OrderRecord; reason: string; error: unknown }
  | { order: OrderRecord; taken: IssuanceTaken };

/** The order as `issueOrders` left it in the database. */
function issuedOrder(order: OrderRecord, certificateId: number, certificateSerial: string, when: Date): OrderRecord {
  return { ...order, status: 'issued', certificateId, certificateSerial, error: null, leaseOwner: null, leaseExpires: null, updated: when };
}

/** The certificates of `signed`, signed and not stored: their intents failed with `why`. */
async function notIssued(c: RunnerContext, signed: readonly { certificate: SignedCertificate }[], why: unknown): Promise<void> {
  for (const { certificate } of signed) await recordNotIssued(c.signing.intents, certificate, why);
}

/**
 * Orders whose intent has its certificate already (another runner signed and stored it, then could not
 * mark the order): issued with that certificate. Orders whose intent another runner still signs are
 * left to it. How many were marked.
 */
async function takeIssued(c: RunnerContext, outcomes: readonly Outcome[]): Promise<number> {
  let marked = 0;
  for (const o of outcomes) {
    if (!('taken' in o) || o.taken.intent.certificateId === null) continue;
    const issued = await takeIssuedCertificate(c.store, o.order, o.taken.intent.certificateId);
    if (!issued) continue;
    c.announce([issued]);
    marked++;
  }
  return marked;
}

/** One batch; `ok: false` asks the runner to take `claimed` orders one at a time next. */
export async function processOrderBatch(c: RunnerContext): Promise<{ ok: boolean; claimed: number }> {
  const { store, intake } = c;
  let taken: OrderRecord[] = [];
  try {
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
          if (e instanceof IssuanceTaken) return { order, taken: e };
          return { order, error: e, reason: reasonOf(e) };
        }
      }),
    );
    const signed = outcomes.filter((o): o is Extract<Outcome, { certificate: SignedCertificate }> => 'certificate' in o);
    const failed = outcomes.filter((o): o is Extract<Outcome, { reason: string }> => 'reason' in o);
    // The database failed, not the order: retried one at a time, as a refused statement is.
    const storeFailure = failed.find((o) => isStoreError(o.error));
    if (storeFailure) {
      await notIssued(c, signed, storeFailure.error);
      throw storeFailure.error;
    }
    const when = new Date();
    const byOrder = new Map(signed.map((o) => [o.order.id, o]));
    let stored: Awaited<ReturnType<typeof storeSignedOrders>> = [];
    try {
      stored = signed.length ? await storeSignedOrders(store, signed, when, c.leaseOwner) : [];
    } catch (e) {
      // Refused as a whole: its certificates are not issued, and the orders, one at a time
      // next, get intents of their own (these would hold them for the order lease otherwise).
      if (!isConnectionLost(e)) await notIssued(c, signed, e);
      throw e;
    }
    let claimed = stored.length;
    const storedOrders = new Set(stored.map((s) => s.orderId));
    for (const { certificate } of signed.filter((o) => !storedOrders.has(o.order.id))) {
      await recordNotIssued(c.signing.intents, certificate, 'the order was finished by another runner');
    }
    claimed += await takeIssued(c, outcomes);
    c.announce(
      stored.map(({ orderId, certificateId }) => {
        const { order, certificate } = byOrder.get(orderId) as (typeof signed)[number];
        return issuedOrder(order, certificateId, certificate.serial, when);
      }),
    );
    if (failed.length) {
      const marked = await store.failOrders(
        failed.map((o) => ({ order: o.order, reason: o.reason })),
        c.leaseOwner,
      );
      claimed += marked.length;
      c.announce(marked);
    }
    return { ok: true, claimed };
  } catch (e) {
    if (isConnectionLost(e)) throw e; // an outage: the work loop backs off (lib/work/loop.ts); nothing is counted
    c.logError('express-ca-api: a batch of orders failed; retrying them one at a time', e);
    // Its orders are still pending and no longer handed over: their jobs let go, the single orders
    // and the batches after them claim them from the database (order-intake.ts).
    await store
      .releaseOrderJobs(
        taken.map((o) => o.id),
        c.leaseOwner,
      )
      .catch(() => undefined); // refused too: the leases lapse
    intake.listSoon();
    return { ok: false, claimed: Math.max(taken.length, 1) }; // every order of it once alone, the one at fault among them
  } finally {
    intake.release(taken);
  }
}
