/**
 * A REST order (docs/reference/differences.md D3): placed by the sign and resign endpoints for a request prepared and
 * checked already (prepare.ts), finished at once by this process's order runner where it can (signed
 * and written already issued, in one statement), else written pending for a runner — this process's
 * or another's — and waited for a little (docs/DESIGN.md "Orders").
 */
import {
  hasImmediateOrders,
  type Actor,
  type CaRecord,
  type MetricsSink,
  type OrderRecord,
  type OrderRunner,
  type SignRequest,
  type Store,
} from '../../ports';
import { storableRequest, type KeyBackends } from '../key-backends';

/** Where orders go and who finishes them. */
export interface OrderQueue {
  store: Pick<Store, 'createOrder'>;
  /** Which per-use key options an order row may keep (`storableRequest`). */
  keyBackends: KeyBackends;
  orderRunner: OrderRunner | null;
  /** Ask the runner to finish orders in the request (router option `signInRequest`). */
  signInRequest: boolean;
  /** How long to wait for a queued order before answering (router option `orderWaitMs`). */
  orderWaitMs: number;
  orders: { waitUntilFinished(orderId: number, timeoutMs: number): Promise<void> };
  /** Told how long an order signed in the request took (docs/operations/metrics.md); queued ones are the runner's to tell. */
  metrics?: MetricsSink;
}

/** Who places an order: the API user (its id owns the order) as the actor of its events. */
export interface OrderRequester {
  userId: number;
  actor: Actor;
}

/**
 * How long an order is left to the runner of the instance that wrote it before the runners of other
 * instances may take it (`OrderRunner.leaseOwner`): long enough for a busy runner to reach it, short
 * enough that a crashed instance's orders are soon finished by another.
 */
export const ORDER_LEASE_MS = 5000;

/**
 * Place an order for `request`: finished at once by this process's runner where it can, else written
 * pending, handed to the runner, and waited for up to `orderWaitMs`. Returns the order as placed
 * (`pending`, as upstream answers even when it signed at once: docs/COMPATIBILITY.md §3.1).
 * `requested`: when the request came in, for the issuance latency of an order signed at once.
 */
export async function placeOrder(
  queue: OrderQueue,
  ca: CaRecord,
  by: OrderRequester,
  request: SignRequest,
  requested?: Date,
): Promise<OrderRecord> {
  const runner = queue.orderRunner;
  const placed = { caId: ca.id, userId: by.userId, requester: by.actor };
  if (queue.signInRequest && runner && hasImmediateOrders(runner)) {
    const issued = await runner.finishNow({ ...placed, request }, ca);
    if (issued) {
      if (requested) queue.metrics?.issuanceCompleted('in_request', (Date.now() - requested.getTime()) / 1000);
      return asPlaced(issued);
    }
  }
  const owner = runner?.leaseOwner;
  const lease = owner ? { owner, expires: new Date(Date.now() + ORDER_LEASE_MS) } : undefined;
  const stored = storableRequest(queue.keyBackends, ca, request);
  const order = await queue.store.createOrder({ ...placed, request: stored, ...(lease ? { lease } : {}) });
  // This process's runner signs with the options as given; the row keeps only what may be stored.
  runner?.notify(stored === request ? order : { ...order, request });
  await queue.orders.waitUntilFinished(order.id, queue.orderWaitMs);
  return order;
}

/** The answer to sign/resign: the order as placed, as upstream answers even when it signed at once. */
function asPlaced(order: OrderRecord): OrderRecord {
  return { ...order, status: 'pending', certificateSerial: null, certificateId: null, error: null, updated: order.created };
}
