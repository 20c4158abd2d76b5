/**
 * Which pending orders the in-process runner's next batch takes.
 *
 * - Orders the sign endpoint has just written are handed over (`hand`, from `notify(order)`) and
 *   taken without reading them back.
 * - The database is listed only when a listing is due: at the first take, after `listSoon` (the poll
 *   loop's timer and an explicit drain ask for one), at least every `listIntervalMs` under a steady
 *   local stream, and again after a listing that came back full (more may be waiting: a backlog after
 *   a restart). So orders written elsewhere (another process, a crash before this start, an expired
 *   lease) are found within the interval, and a drain set off by a handed-over order costs no read.
 *   Listing whenever nothing was handed over made every drain end with a read that found nothing;
 *   with three instances on one database that was 0.45 reads per issued certificate (docs/DESIGN.md
 *   "Orders").
 * - Several batches may be under way at once: an order one batch holds (`inFlight`) is not given to
 *   another, and a batch that found only held orders can wait (`released`) for one to end.
 * Nothing here is authoritative: the batch still locks its orders in the database before it stores
 * them, so an order taken twice (by another process, say) is stored once.
 */
import type { BatchOrderStore, OrderRecord } from '../../ports';

export class OrderIntake {
  private readonly handed = new Map<number, OrderRecord>();
  private readonly inFlight = new Set<number>();
  private lastListed = 0;
  private listDue = true;
  private ended = signal();

  constructor(
    private readonly batchSize: number,
    private readonly listIntervalMs: number,
  ) {}

  /** An order this process has just written, complete and pending. */
  hand(order: OrderRecord): void {
    this.handed.set(order.id, order);
  }

  /** The next take lists the database (orders written elsewhere, or released unfinished). */
  listSoon(): void {
    this.listDue = true;
  }

  /** True while some batch holds orders. */
  get busy(): boolean {
    return this.inFlight.size > 0;
  }

  /** The next batch, oldest first, now held until `release`. */
  async take(source: BatchOrderStore, leaseOwner?: string): Promise<OrderRecord[]> {
    const now = Date.now();
    let listed: OrderRecord[] = [];
    if (this.listDue || now - this.lastListed >= this.listIntervalMs) {
      this.lastListed = now;
      this.listDue = false;
      const limit = this.batchSize + this.inFlight.size;
      listed = await source.listPendingOrders(limit, leaseOwner);
      if (listed.length >= limit) this.listDue = true; // a full page: list again next time
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
