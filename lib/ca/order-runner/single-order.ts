/**
 * The one-order path, as a job handler: one `rest_order` job (lib/ports/jobs.ts), claimed by the job
 * runner (lib/work/jobs-runner.ts, through `JobStore.claim`), is read, signed with no transaction
 * open, and stored with the same one statement as a batch (`issueOrders`: certificate, order issued,
 * job done, event), which writes only while the job's lease is held. Slower than a batch, but it
 * isolates an order the database refuses: the refusal is a failed attempt counted in the job, retried
 * after the `restOrderRetry` back-off (lib/work/policies.ts); at `maxAttempts` the order fails with
 * the reason and its job is done in one statement (a REST order's failure is the order's state, not
 * its job's). The runner takes this path after a batch the database refused (lanes.ts); the handler
 * is exported (`restOrderJobHandler`) so that one job runner may run it beside the other kinds.
 *
 * Signing happens outside any transaction and under no row lock, as the issuing authority requires
 * (docs/DESIGN.md "Issuing authority"): its intent is committed first, and a key that takes long (an
 * HSM) holds nothing but the job's lease. Another runner that takes the order meanwhile (the lease
 * lapsed) meets the order's intent and signs the same TBSCertificate; the first certificate stored is
 * the order's, the other's statement writes nothing.
 */
import { recordNotIssued } from '../issuance/issue';
import { ORDER_LEASE_MS } from '../issuance/place-order';
import { signOrder, storeSignedOrders, takeIssuedCertificate } from '../issuance/order-store';
import { IssuanceTaken, type SignedCertificate } from '../issuance/sign';
import { isConnectionLost, JOB_KINDS, type JobRecord, type OrderRecord } from '../../ports';
import type { JobContext, JobHandler, JobOutcome } from '../../work/jobs-runner';
import { BACKOFF_POLICIES } from '../../work/policies';
import { isStoreError, reasonOf, type RunnerContext } from './runner-context';

/** The reason of an order the database refused `maxAttempts` times. */
export const REFUSED_REASON = 'Could not sign certificate: the database refused to store it.';

/** The `rest_order` kind's handler: one queued REST order signed and stored (or failed) per job. */
export function restOrderJobHandler(c: RunnerContext): JobHandler {
  return {
    kind: JOB_KINDS.restOrder,
    leaseMs: ORDER_LEASE_MS,
    policy: BACKOFF_POLICIES.restOrderRetry(c.pollIntervalMs),
    // No `maxAttempts` here: past its attempts the handler fails the ORDER (and the job is done with it).
    handle: (job, context) => processOrderJob(c, job, context),
  };
}

/** What a statement that ends the job made of the order: told to the listeners, or the lease was lost. */
function ended(c: RunnerContext, orders: readonly OrderRecord[]): JobOutcome {
  if (orders.length === 0) return { kind: 'lost' };
  c.announce(orders);
  return { kind: 'settled' };
}

async function processOrderJob(c: RunnerContext, job: JobRecord, { lease }: JobContext): Promise<JobOutcome> {
  const { store } = c;
  const [order] = await store.pendingOrders([Number(job.reference)]);
  if (!order) return { kind: 'done' }; // finished meanwhile (in a batch's statement, or retried and issued): nothing left
  const fail = async (reason: string) => ended(c, await store.failOrders([{ order, reason }], lease.owner));
  let certificate: SignedCertificate | null = null;
  try {
    const ca = await store.getCa(order.caId);
    if (!ca) return await fail('The certificate authority no longer exists.');
    try {
      certificate = await signOrder(c.signing, ca, order);
    } catch (e) {
      if (!(e instanceof IssuanceTaken) || isStoreError(e)) throw e;
      if (e.intent.certificateId === null) {
        // Another runner is signing it now (its intent is young): looked at again after the order lease, no attempt counted.
        return { kind: 'retry', error: 'another runner is signing this order', attempts: job.attempts, delayMs: ORDER_LEASE_MS };
      }
      // Another runner stored its certificate and could not mark the order: issued with it (its job done in that transaction).
      const issued = await takeIssuedCertificate(store, order, e.intent.certificateId);
      if (issued) c.announce([issued]);
      return { kind: 'settled' };
    }
    const stored = await storeSignedOrders(store, [{ order, certificate }], new Date(), lease.owner);
    if (stored.length === 0) {
      await recordNotIssued(c.signing.intents, certificate, 'the order was finished by another runner');
      return { kind: 'lost' };
    }
    const when = new Date();
    return ended(c, [
      {
        ...order,
        status: 'issued',
        certificateId: stored[0].certificateId,
        certificateSerial: certificate.serial,
        error: null,
        updated: when,
      },
    ]);
  } catch (e) {
    // An outage is not the order's fault: not counted; the lease lapses and the job runner's loop backs off.
    if (isConnectionLost(e)) throw e;
    if (certificate) await recordNotIssued(c.signing.intents, certificate, e);
    if (!isStoreError(e)) return fail(reasonOf(e)); // the rules refused it: the order fails with why
    const attempts = job.attempts + 1;
    c.logError(`express-ca-api: processing order ${order.slug} failed (attempt ${attempts} of ${c.maxAttempts})`, e);
    if (attempts >= c.maxAttempts) return fail(REFUSED_REASON);
    return { kind: 'retry', error: reasonOf(e), attempts };
  }
}
