/**
 * Which pending orders the in-process runner's next batch takes.
 *
 * - Orders the sign endpoint has just written are handed over (`hand`, from `notify(order)`) and
 *   taken without reading them back. The database is still listed whenever nothing was handed over
 *   and at least every `listIntervalMs`, so orders written elsewhere (another process, a crash before
 *   this start) are not starved by a steady local stream.
 * - Several batches may be under way at once: an order one batch holds (`inFlight`) is not given to
 *   another, and a batch that found only held orders can wait (`released`) for one to end.
 * Nothing here is authoritative: the batch still locks its orders in the database before it stores
 * them, so an order taken twice (by another process, say) is stored once.
 */
import type { BatchOrderStore, OrderRecord } from '../../lib/ports';

export class OrderIntake {
  private readonly handed = new Map<number, OrderRecord>();
  private readonly inFlight = new Set<number>();
  private lastListed = 0;
  private ended = signal();

  constructor(
    private readonly batchSize: number,
    private readonly listIntervalMs: number,
  ) {}

  /** An order this process has just written, complete and pending. */
  hand(order: OrderRecord): void {
    this.handed.set(order.id, order);
  }

  /** True while some batch holds orders. */
  get busy(): boolean {
    return this.inFlight.size > 0;
  }

  /** The next batch, oldest first, now held until `release`. */
  async take(source: BatchOrderStore, leaseOwner?: string): Promise<OrderRecord[]> {
    const now = Date.now();
    let listed: OrderRecord[] = [];
    if (this.handed.size === 0 || now - this.lastListed >= this.listIntervalMs) {
      this.lastListed = now;
      listed = await source.listPendingOrders(this.batchSize + this.inFlight.size, leaseOwner);
    }
    const batch = new Map<number, OrderRecord>();
    for (const order of [...listed, ...this.handed.values()]) {
      if (batch.size >= this.batchSize) break;
      if (!this.inFlight.has(order.id)) batch.set(order.id, order);
    }
    for (const id of batch.keys()) {
      this.handed.delete(id);
      this.inFlight.add(id);
    }
    return [...batch.values()].sort((a, b) => a.id - b.id);
  }

  /** The batch holding these orders has ended (stored, failed or given up). */
  release(orders: readonly OrderRecord[]): void {
    if (orders.length === 0) return;
    for (const order of orders) this.inFlight.delete(order.id);
    const ended = this.ended;
    this.ended = signal();
    ended.resolve();
  }

  /** Resolves when some batch next ends. */
  released(): Promise<void> {
    return this.ended.promise;
  }

  /** Forget what was handed over (still pending in the database: the next start finds it there). */
  clear(): void {
    this.handed.clear();
  }
}

function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
