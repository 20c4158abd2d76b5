/**
 * A small pool of worker threads running one piece of JavaScript source, for CPU work that must stay
 * off the event loop (bcrypt, signature checks). Threads start on first use and are unref'd while
 * idle, so an idle pool never keeps a process alive; a thread that dies fails only its own task.
 *
 * The source is evaluated (`new Worker(source, { eval: true })`) rather than loaded from a file, so
 * the same code runs from the TypeScript sources (ts-jest, ts-node) and from the compiled package. It
 * receives `{ id, ...request }` messages and answers `{ id, threadId, ok: true, result }` or
 * `{ id, threadId, ok: false, error }` (a message that must never hold a secret).
 */
import * as os from 'os';
import { Worker } from 'worker_threads';

/** Threads for CPU work beside a server: one fewer than the machine has cores (the event loop keeps one), at least one, at most four. */
export function defaultThreadCount(): number {
  return Math.min(4, Math.max(1, os.availableParallelism() - 1));
}

export type WorkerReply<R> =
  { id: number; threadId: number; ok: true; result: R } | { id: number; threadId: number; ok: false; error: string };

interface Task<Q, R> {
  request: Q & { id: number };
  /** Moved to the thread instead of copied (postMessage's transfer list). */
  transfer: ArrayBuffer[];
  resolve: (value: R) => void;
  reject: (error: Error) => void;
}

interface Slot<Q, R> {
  worker: Worker;
  /** Tasks posted to the thread and not answered yet, by id (a thread answers them in order). */
  busy: Map<number, Task<Q, R>>;
}

export interface WorkerPoolOptions {
  /** Evaluated JavaScript the threads run. */
  source: string;
  workerData?: unknown;
  size: number;
  /** Names the pool in errors: `${name} closed`, `${name}: <the thread's error>`. */
  name: string;
  /**
   * Tasks a thread may hold at once (default 1). Short tasks want more: waking a sleeping thread for
   * each one cost the event loop about 50-100 µs a message here, a thread that is still busy nothing.
   */
  tasksPerThread?: number;
}

export class WorkerPool<Q extends object, R> {
  readonly size: number;
  private readonly slots: Slot<Q, R>[] = [];
  private readonly queue: Task<Q, R>[] = [];
  private nextId = 1;
  private closed = false;
  /** Thread ids (never the main thread's 0) that answered, with how many tasks each. */
  readonly tasksByThread: Record<number, number> = {};

  constructor(private readonly options: WorkerPoolOptions) {
    const { size, name } = options;
    if (!Number.isInteger(size) || size < 1) throw new Error(`${name}: size must be a positive integer (got ${size})`);
    this.size = size;
  }

  /** Run `request` on a thread; `transfer`: ArrayBuffers of it moved there rather than copied. */
  run(request: Q, transfer: ArrayBuffer[] = []): Promise<R> {
    if (this.closed) return Promise.reject(new Error(`${this.options.name} closed`));
    return new Promise((resolve, reject) => {
      this.queue.push({ request: { ...request, id: this.nextId++ }, transfer, resolve, reject });
      this.dispatch();
    });
  }

  /** Terminate the threads; queued tasks reject. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error(`${this.options.name} closed`));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private dispatch(): void {
    const most = this.options.tasksPerThread ?? 1;
    while (this.queue.length) {
      let slot = this.slots.find((s) => s.busy.size === 0); // an idle thread first, then a new one
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      slot ??= this.slots.filter((s) => s.busy.size < most).sort((a, b) => a.busy.size - b.busy.size)[0];
      if (!slot) return;
      const task = this.queue.shift() as Task<Q, R>;
      slot.busy.set(task.request.id, task);
      slot.worker.ref(); // keep the process alive until the answers are in
      slot.worker.postMessage(task.request, task.transfer);
    }
  }

  private spawn(): Slot<Q, R> {
    const worker = new Worker(this.options.source, { eval: true, workerData: this.options.workerData });
    const slot: Slot<Q, R> = { worker, busy: new Map() };
    worker.unref();
    worker.on('message', (reply: WorkerReply<R>) => {
      const task = slot.busy.get(reply.id);
      slot.busy.delete(reply.id);
      if (slot.busy.size === 0) worker.unref();
      if (task) {
        this.tasksByThread[reply.threadId] = (this.tasksByThread[reply.threadId] ?? 0) + 1;
        if (reply.ok) task.resolve(reply.result);
        else task.reject(new Error(`${this.options.name}: ${reply.error}`));
      }
      this.dispatch();
    });
    const fail = (error: Error): void => {
      const index = this.slots.indexOf(slot);
      if (index !== -1) this.slots.splice(index, 1);
      for (const task of slot.busy.values()) task.reject(error);
      slot.busy.clear();
      if (!this.closed) this.dispatch();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`${this.options.name} worker exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }
}
