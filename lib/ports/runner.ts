/** Order processing: the runner port, its optional capabilities, and the store capability it writes issued orders with. */
import type { CaRecord, NewCertificate, NewOrder, OrderRecord } from './records';

export interface OrderRunner {
  /** Begin processing (including orders left pending by an earlier process). */
  start(): Promise<void>;
  /** Stop taking new orders; resolves when in-flight orders are finished. */
  stop(): Promise<void>;
  /**
   * Hint that a new order exists (a worker may also poll). The sign endpoint passes the order it has
   * just written, so that a runner in this process need not read it back.
   */
  notify(order?: OrderRecord): void;
  /**
   * Optional: this runner's name, unique per process. The sign endpoint then writes the orders it
   * notifies this runner of leased to it for a few seconds, so that the runners of other instances on
   * the same database leave them alone meanwhile: without that, every instance would read and sign
   * every fresh order and all but one would throw their work away (docs/DESIGN.md "Orders").
   * Undefined while the runner is stopped.
   */
  readonly leaseOwner?: string;
}

/**
 * Optional runner capability: tell listeners in this process when an order is finished (`issued` or
 * `failed`), after the commit, with the order as stored. The API keeps finished orders in memory from
 * these (a finished order never changes) and lets a sign request wait for its order.
 */
export interface OrderSettledEvents {
  /** Subscribe; returns the function that unsubscribes. */
  onOrderSettled(listener: (order: OrderRecord) => void): () => void;
}

// Orders finished in the sign request (docs/DESIGN.md "Orders signed in the request"): a runner
// capability and the store capability it writes with.

/** A new order finished as it is placed: its certificate was signed in the sign request. */
export type NewIssuedOrder = NewOrder & { certificate: NewCertificate };

/**
 * Optional store capability: write an order already `issued` together with its certificate, in one
 * atomic write. Nothing is written, and null is returned, when the order's CA is missing or revoked as
 * the write commits: the caller then places the order pending, and the runner records why it fails.
 */
export interface IssuedOrderStore {
  createIssuedOrder(order: NewIssuedOrder): Promise<OrderRecord | null>;
}

export function hasIssuedOrders<S extends object>(store: S): store is S & IssuedOrderStore {
  return typeof (store as Partial<IssuedOrderStore>).createIssuedOrder === 'function';
}

/**
 * Optional runner capability: finish a new order in the caller's turn — sign it at once and write it
 * already issued — instead of being handed it. The sign endpoint asks first (router option
 * `signInRequest`); null means "not done": the runner is stopped, its store cannot write issued
 * orders, signing failed, or the CA was revoked meanwhile. The order is then placed pending as usual,
 * and the runner's queued path records why it fails (docs/reference/differences.md D3). A finished order is announced like
 * any other (`onOrderSettled`).
 */
export interface ImmediateOrders {
  finishNow(order: NewOrder, ca: CaRecord): Promise<OrderRecord | null>;
}

export function hasImmediateOrders<R extends object>(runner: R): runner is R & ImmediateOrders {
  return typeof (runner as Partial<ImmediateOrders>).finishNow === 'function';
}
