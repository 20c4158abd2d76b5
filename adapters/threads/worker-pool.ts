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
import { Worker } from 'worker_threads';

export type WorkerReply<R> =
  { id: number; threadId: number; ok: true; result: R } | { id: number; threadId: number; ok: false; error: string };

interface Task<Q, R> {
  request: Q & { id: number };
  resolve: (value: R) => void;
  reject: (error: Error) => void;
}

interface Slot<Q, R> {
  worker: Worker;
  busy: Task<Q, R> | null;
}

export interface WorkerPoolOptions {
  /** Evaluated JavaScript the threads run. */
  source: string;
  workerData?: unknown;
  size: number;
  /** Names the pool in errors: `${name} closed`, `${name}: <the thread's error>`. */
  name: string;
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

  run(request: Q): Promise<R> {
    if (this.closed) return Promise.reject(new Error(`${this.options.name} closed`));
    return new Promise((resolve, reject) => {
      this.queue.push({ request: { ...request, id: this.nextId++ }, resolve, reject });
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
    while (this.queue.length) {
      let slot = this.slots.find((s) => s.busy === null);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const task = this.queue.shift() as Task<Q, R>;
      slot.busy = task;
      slot.worker.ref(); // keep the process alive until the answer is in
      slot.worker.postMessage(task.request);
    }
  }

  private spawn(): Slot<Q, R> {
    const worker = new Worker(this.options.source, { eval: true, workerData: this.options.workerData });
    const slot: Slot<Q, R> = { worker, busy: null };
    worker.unref();
    worker.on('message', (reply: WorkerReply<R>) => {
      const task = slot.busy;
      slot.busy = null;
      worker.unref();
      if (task && task.request.id === reply.id) {
        this.tasksByThread[reply.threadId] = (this.tasksByThread[reply.threadId] ?? 0) + 1;
        if (reply.ok) task.resolve(reply.result);
        else task.reject(new Error(`${this.options.name}: ${reply.error}`));
      }
      this.dispatch();
    });
    const fail = (error: Error): void => {
      const index = this.slots.indexOf(slot);
      if (index !== -1) this.slots.splice(index, 1);
      if (slot.busy) slot.busy.reject(error);
      slot.busy = null;
      if (!this.closed) this.dispatch();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`${this.options.name} worker exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }
}
