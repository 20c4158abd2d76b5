/**
 * Finished orders kept in memory for `GET /ca/{serial}/orders/{slug}/`, and a way for a sign request
 * to wait until its order is finished.
 *
 * Clients poll their order until it leaves `pending`; a finished order (`issued` or `failed`) never
 * changes again, so once this process has seen one — read from the store, or announced by the order
 * runner's `onOrderSettled` (lib/ports) right after its commit — it is answered from memory with no
 * staleness at all. Pending orders are never kept: another process may finish them at any moment.
 */
import { RecordCache, subscribeIfSupported } from '../cache/record-cache';
import type { OrderRecord, OrderRunner, OrderSettledEvents, Store } from '../ports';

export interface OrderCacheOptions {
  /** Default 10 000 orders. */
  maxEntries?: number;
}

const isFinished = (order: OrderRecord) => order.status !== 'pending';

export class OrderCache implements Pick<Store, 'getOrder'> {
  /** Finished orders by slug; no TTL, as they do not change. */
  private readonly cache: RecordCache<OrderRecord>;
  private readonly waiters = new Map<number, (() => void)[]>();
  private readonly unsubscribe: (() => void) | null;

  constructor(
    private readonly store: Pick<Store, 'getOrder'>,
    runner: (OrderRunner & Partial<OrderSettledEvents>) | null,
    options: OrderCacheOptions = {},
  ) {
    this.cache = new RecordCache((order) => order.slug, { ttlMs: Infinity, maxEntries: options.maxEntries ?? 10_000 });
    this.unsubscribe = subscribeIfSupported(runner?.onOrderSettled?.bind(runner), (order: OrderRecord) => this.settled(order));
  }

  /** True when the runner announces finished orders (then `waitUntilFinished` can do its job). */
  get announced(): boolean {
    return this.unsubscribe !== null;
  }

  async getOrder(slug: string): Promise<OrderRecord | null> {
    const hit = this.cache.get(slug);
    if (hit) return hit;
    const order = await this.store.getOrder(slug);
    if (order && isFinished(order)) this.cache.put(order);
    return order;
  }

  /**
   * Resolves once the runner has finished the order, or after `timeoutMs`, whichever comes first
   * (at once when the runner does not announce finished orders). Never rejects.
   */
  waitUntilFinished(orderId: number, timeoutMs: number): Promise<void> {
    if (!this.announced || timeoutMs <= 0 || this.cache.getById(orderId)) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      const list = this.waiters.get(orderId) ?? [];
      list.push(done);
      this.waiters.set(orderId, list);
      const waiters = this.waiters;
      function done(): void {
        clearTimeout(timer);
        const left = (waiters.get(orderId) ?? []).filter((w) => w !== done);
        if (left.length) waiters.set(orderId, left);
        else waiters.delete(orderId);
        resolve();
      }
    });
  }

  close(): void {
    this.unsubscribe?.();
    for (const list of [...this.waiters.values()]) for (const done of list) done();
    this.cache.clear();
  }

  private settled(order: OrderRecord): void {
    if (isFinished(order)) this.cache.put(order);
    for (const done of this.waiters.get(order.id) ?? []) done();
  }
}
