/**
 * `onOrderSettled` (lib/ports `OrderSettledEvents`): the runner tells listeners in this process
 * about each order it finished, after its transaction has committed, with the order as stored. Apart
 * from the batch and one-order paths so that both announce the same way, and so that a failing
 * listener is logged and never undoes or repeats the work of the runner.
 */
import type { OrderRecord } from '../../ports';

export class SettledEvents {
  private readonly listeners = new Set<(order: OrderRecord) => void>();

  constructor(private readonly logError: (message: string, error: unknown) => void) {}

  /** Subscribe; returns the function that unsubscribes. */
  subscribe(listener: (order: OrderRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tell the listeners about orders whose transaction has committed. */
  announce(orders: readonly OrderRecord[]): void {
    for (const order of orders) {
      for (const listener of this.listeners) {
        try {
          listener(order);
        } catch (e) {
          this.logError('express-ca-api: an order-settled listener failed', e);
        }
      }
    }
  }
}
