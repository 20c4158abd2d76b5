/**
 * A small pool of worker threads for bcrypt.
 *
 * bcryptjs is pure JavaScript: one compare at cost 10 takes ~80 ms of CPU, and on the event loop that
 * would stall every other request for that long. Basic auth needs a compare on every uncached request,
 * so compares (and hashes) run here, off the loop. Threads start on first use and are unref'd while
 * idle, so an idle pool never keeps a process alive.
 */
import * as os from 'os';
import { Worker } from 'worker_threads';
import { BCRYPT_WORKER_SOURCE, type BcryptReply, type BcryptRequest, type BcryptWorkerData } from './bcrypt-worker';

export interface BcryptPoolOptions {
  /** Number of threads; default: half the CPUs, at least 1, at most 4. */
  size?: number;
}

export interface BcryptPoolStats {
  compares: number;
  hashes: number;
  /** Thread ids (never the main thread's 0) that answered, with how many tasks each. */
  tasksByThread: Record<number, number>;
}

interface Task {
  request: BcryptRequest;
  resolve: (value: boolean | string) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  busy: Task | null;
}

export class BcryptPool {
  readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;
  private readonly counters: BcryptPoolStats = { compares: 0, hashes: 0, tasksByThread: {} };

  constructor(options: BcryptPoolOptions = {}) {
    const fallback = Math.min(4, Math.max(1, Math.floor(os.availableParallelism() / 2)));
    const size = options.size ?? fallback;
    if (!Number.isInteger(size) || size < 1) throw new Error(`BcryptPool: size must be a positive integer (got ${size})`);
    this.size = size;
  }

  /** True when `password` matches the bcrypt `hash`. A malformed hash rejects. */
  compare(password: string, hash: string): Promise<boolean> {
    this.counters.compares++;
    return this.submit({ op: 'compare', password, hash }) as Promise<boolean>;
  }

  /** A new bcrypt hash of `password` at cost `rounds`. */
  hash(password: string, rounds = 10): Promise<string> {
    this.counters.hashes++;
    return this.submit({ op: 'hash', password, rounds }) as Promise<string>;
  }

  stats(): BcryptPoolStats {
    return { ...this.counters, tasksByThread: { ...this.counters.tasksByThread } };
  }

  /** Terminate the threads; queued tasks reject. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('BcryptPool closed'));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private submit(op: Omit<BcryptRequest, 'id'>): Promise<boolean | string> {
    if (this.closed) return Promise.reject(new Error('BcryptPool closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ request: { ...op, id: this.nextId++ }, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => s.busy === null);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const task = this.queue.shift() as Task;
      slot.busy = task;
      slot.worker.ref(); // keep the process alive until the answer is in
      slot.worker.postMessage(task.request);
    }
  }

  private spawn(): Slot {
    const workerData: BcryptWorkerData = { bcryptPath: require.resolve('bcryptjs') };
    const worker = new Worker(BCRYPT_WORKER_SOURCE, { eval: true, workerData });
    const slot: Slot = { worker, busy: null };
    worker.unref();
    worker.on('message', (reply: BcryptReply) => {
      const task = slot.busy;
      slot.busy = null;
      worker.unref();
      if (task && task.request.id === reply.id) {
        this.counters.tasksByThread[reply.threadId] = (this.counters.tasksByThread[reply.threadId] ?? 0) + 1;
        if (reply.ok) task.resolve(reply.result);
        else task.reject(new Error(`bcrypt: ${reply.error}`));
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
    worker.on('exit', (code) => fail(new Error(`bcrypt worker exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }
}
