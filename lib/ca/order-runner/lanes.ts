/**
 * One drain of the pending orders: `concurrency` lanes, each taking batches (batch.ts) until nothing
 * is left that another lane does not hold — while one batch is being stored the next one is read and
 * signed (docs/DESIGN.md "Orders"). After a batch the database refused, its lane takes that many
 * orders one job at a time (single-order.ts, run by a `JobsRunner`), which isolates the order at fault
 * and counts its attempts in its job, then batches again. `batching: false` gives lanes of single
 * orders only.
 */
import type { OrderIntake } from './order-intake';

export interface LaneWork {
  /** Lanes under way at once (1 when not batching). */
  concurrency: number;
  batching: boolean;
  intake: OrderIntake;
  /** One order alone (one `rest_order` job claimed and run); false when none was due. */
  processOne(): Promise<boolean>;
  /** One batch; `ok: false` asks for `claimed` orders one at a time next. */
  processBatch(): Promise<{ ok: boolean; claimed: number }>;
}

/** Run the lanes until the pending orders are done; resolves with how many were finished. */
export async function drainLanes(work: LaneWork): Promise<number> {
  // Every lane ends before the drain does, also when one fails (an outage): the next drain must not
  // start beside a lane still holding orders of this one.
  const lanes = await Promise.allSettled(Array.from({ length: work.concurrency }, () => drainLane(work)));
  const failed = lanes.find((l) => l.status === 'rejected');
  if (failed) throw failed.reason;
  return lanes.reduce((sum, l) => sum + (l.status === 'fulfilled' ? l.value : 0), 0);
}

async function drainLane({ batching, intake, processOne, processBatch }: LaneWork): Promise<number> {
  let n = 0;
  let singles = 0; // orders to take one at a time (after a failed batch) before batching again
  for (;;) {
    if (singles > 0 || !batching) {
      if (!(await processOne())) return n;
      n++;
      singles--;
      continue;
    }
    await yieldToEventLoop();
    const batch = await processBatch();
    if (!batch.ok) {
      singles = Math.max(1, batch.claimed);
      continue;
    }
    if (batch.claimed === 0) {
      if (!intake.busy) return n;
      await intake.released(); // another lane holds what is pending: look again when it is done
      continue;
    }
    n += batch.claimed;
  }
}

/**
 * Let the event loop run (sockets, timers) before going on. Embedded PGlite answers queries without
 * real I/O, so a worker's transaction is one long chain of promise jobs; without this, responses
 * already computed (their sockets are uncorked in a later tick) would wait for the whole batch.
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
