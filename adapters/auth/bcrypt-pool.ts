/**
 * A small pool of worker threads for bcrypt.
 *
 * bcryptjs is pure JavaScript: one compare at cost 10 takes ~80 ms of CPU, and on the event loop that
 * would stall every other request for that long. Basic auth needs a compare on every uncached request,
 * so compares (and hashes) run here, off the loop. Threads start on first use and are unref'd while
 * idle, so an idle pool never keeps a process alive.
 */
import * as os from 'os';
import { WorkerPool } from '../threads/worker-pool';
import { BCRYPT_WORKER_SOURCE, type BcryptRequest, type BcryptWorkerData } from './bcrypt-worker';

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

export class BcryptPool {
  readonly size: number;
  private readonly pool: WorkerPool<Omit<BcryptRequest, 'id'>, boolean | string>;
  private readonly counters = { compares: 0, hashes: 0 };

  constructor(options: BcryptPoolOptions = {}) {
    const fallback = Math.min(4, Math.max(1, Math.floor(os.availableParallelism() / 2)));
    const workerData: BcryptWorkerData = { bcryptPath: require.resolve('bcryptjs') };
    this.pool = new WorkerPool({ source: BCRYPT_WORKER_SOURCE, workerData, size: options.size ?? fallback, name: 'bcrypt' });
    this.size = this.pool.size;
  }

  /** True when `password` matches the bcrypt `hash`. A malformed hash rejects. */
  compare(password: string, hash: string): Promise<boolean> {
    this.counters.compares++;
    return this.pool.run({ op: 'compare', password, hash }) as Promise<boolean>;
  }

  /** A new bcrypt hash of `password` at cost `rounds`. */
  hash(password: string, rounds = 10): Promise<string> {
    this.counters.hashes++;
    return this.pool.run({ op: 'hash', password, rounds }) as Promise<string>;
  }

  stats(): BcryptPoolStats {
    return { ...this.counters, tasksByThread: { ...this.pool.tasksByThread } };
  }

  /** Terminate the threads; queued tasks reject. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
