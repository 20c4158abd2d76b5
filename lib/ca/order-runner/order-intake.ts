/**
 * Which pending orders the in-process runner's next batch takes.
 *
 * - Orders the sign endpoint has just written are handed over (`hand`, from `notify(order)`) and
 *   taken without reading them back: their `rest_order` jobs were written leased to this runner, in
 *   the order's INSERT, so no other instance takes them until that lease lapses.
 * - Other orders are claimed through their jobs (`JobStore.claim`, the one claim statement of every
 *   kind of background work), then read by id: only when a claim is due — at the first take, after
 *   `listSoon` (the poll loop's timer and an explicit drain ask for one), at least every
 *   `listIntervalMs` under a steady local stream, and again after a claim that came back full (more
 *   may be waiting: a backlog after a restart). So orders written elsewhere (another process, a crash
 *   before this start, an expired lease) are found within the interval, and a drain set off by a
 *   handed-over order costs no read. Claiming whenever nothing was handed over made every drain end
 *   with a read that found nothing; with three instances on one database that was 0.45 reads per
 *   issued certificate (docs/DESIGN.md "Orders").
 * - Several batches may be under way at once: an order one batch holds (`inFlight`) is not given to
 *   another, and a batch that found only held orders can wait (`released`) for one to end.
 * The job's lease is what counts: the batch's statements write an order only while this runner still
 * holds its job, so an order taken twice (its lease lapsed and another instance claimed it) is stored once.
 */
import { JOB_KINDS, type BatchOrderStore, type JobStoreProvider, type OrderRecord } from '../../ports';

export class OrderIntake {
  private readonly handed = new Map<number, OrderRecord>();
  private readonly inFlight = new Set<number>();
  private lastListed = 0;
  private listDue = true;
  private ended = signal();

  constructor(
    private readonly batchSize: number,
    private readonly listIntervalMs: number,
    /** How long a claim holds an order's job (the order lease, lib/ca/issuance/place-order.ts). */
    private readonly leaseMs: number,
  ) {}

  /** An order this process has just written, complete and pending, its job leased to this runner. */
  hand(order: OrderRecord): void {
    this.handed.set(order.id, order);
  }

  /** The next take claims from the database (orders written elsewhere, or released unfinished). */
  listSoon(): void {
    this.listDue = true;
  }

  /** True while some batch holds orders. */
  get busy(): boolean {
    return this.inFlight.size > 0;
  }

  /** The next batch, oldest first, now held until `release`; `owner` holds the jobs of all of them. */
  async take(source: BatchOrderStore & JobStoreProvider, owner: string): Promise<OrderRecord[]> {
    const batch = new Map<number, OrderRecord>();
    for (const order of this.handed.values()) {
      if (batch.size >= this.batchSize) break;
      if (!this.inFlight.has(order.id)) batch.set(order.id, order);
    }
    for (const id of batch.keys()) this.handed.delete(id);
    const room = this.batchSize - batch.size;
    const now = Date.now();
    if (room > 0 && (this.listDue || now - this.lastListed >= this.listIntervalMs)) {
      this.lastListed = now;
      this.listDue = false;
      // Jobs this runner holds already (handed over, or in another batch) are not claimed again.
      const jobs = await source.jobs.claim([JOB_KINDS.restOrder], owner, room, this.leaseMs);
      if (jobs.length >= room) this.listDue = true; // a full claim: claim again next time
      const orders = await source.pendingOrders(jobs.map((job) => Number(job.reference)));
      const found = new Set(orders.map((o) => o.id));
      for (const order of orders) if (!this.inFlight.has(order.id)) batch.set(order.id, order);
      // The job of an order finished meanwhile (or removed) has nothing left to do.
      for (const job of jobs) if (!found.has(Number(job.reference))) await source.jobs.complete({ id: job.id, owner });
    }
    for (const id of batch.keys()) this.inFlight.add(id);
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
