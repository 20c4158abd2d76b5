/**
 * Records kept in memory for a short while, found by id or by one lookup key (a CA's serial, a
 * username, a certificate's CA and serial, an order's slug). The read caches of the API paths
 * (users, CAs, certificates, finished orders) are all this one structure.
 *
 * Rules shared by all of them:
 * - an entry is trusted for `ttlMs` (Infinity for records that never change); then it is read again;
 * - `invalidate(id)` drops an entry at once (the store's change events call it after a commit);
 * - a read that raced with an invalidation is not kept (generation counter), so a row read just before
 *   a commit cannot outlive the notification of that commit;
 * - misses (unknown keys) are never kept: a record created elsewhere is found at once;
 * - at most `maxEntries` are kept; the longest kept go first.
 */
export interface RecordCacheOptions {
  /** How long an entry is trusted without re-reading it. 0 disables the cache. */
  ttlMs: number;
  /** Upper bound on entries. */
  maxEntries: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  key: string;
  expires: number;
}

export class RecordCache<V extends { id: number }> {
  private readonly byId = new Map<number, Entry<V>>();
  private readonly idByKey = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private generation = 0;
  /** Reads under way by key: concurrent misses of one key share one read (no stampede at expiry). */
  private readonly loading = new Map<string, Promise<V | null>>();

  constructor(
    /** The lookup key of a record (e.g. its serial). */
    private readonly keyOf: (value: V) => string,
    options: RecordCacheOptions,
  ) {
    this.ttlMs = options.ttlMs;
    this.maxEntries = options.maxEntries;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.byId.size;
  }

  /** The fresh entry under this key, or null. */
  get(key: string): V | null {
    const id = this.idByKey.get(key);
    return id === undefined ? null : this.getById(id);
  }

  /** The fresh entry with this id, or null. */
  getById(id: number): V | null {
    const entry = this.byId.get(id);
    if (!entry) return null;
    if (entry.expires > this.now()) return entry.value;
    this.drop(id);
    return null;
  }

  /**
   * The entry under `key`, else what `load` reads (kept unless invalidated meanwhile). Callers that
   * miss the same key while a read is under way share that read.
   */
  read(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const hit = this.get(key);
    if (hit) return Promise.resolve(hit);
    const under = this.loading.get(key);
    if (under) return under;
    const generation = this.generation;
    const reading = load().then(
      (value) => {
        this.loading.delete(key);
        return this.remember(generation, value);
      },
      (error: unknown) => {
        this.loading.delete(key);
        throw error;
      },
    );
    this.loading.set(key, reading);
    return reading;
  }

  /** The entry with `id`, else what `load` reads (kept unless invalidated meanwhile). */
  async readById(id: number, load: () => Promise<V | null>): Promise<V | null> {
    const hit = this.getById(id);
    if (hit) return hit;
    const generation = this.generation;
    return this.remember(generation, await load());
  }

  /** Keep a record known to be current (e.g. one this process has just committed). */
  put(value: V): void {
    this.remember(this.generation, value);
  }

  /** Forget a record (the store's change events call this). */
  invalidate(id: number): void {
    this.generation++;
    this.drop(id);
  }

  /** Forget a record by its key. */
  invalidateKey(key: string): void {
    this.generation++;
    const id = this.idByKey.get(key);
    if (id !== undefined) this.drop(id);
  }

  clear(): void {
    this.generation++;
    this.byId.clear();
    this.idByKey.clear();
  }

  private drop(id: number): void {
    const entry = this.byId.get(id);
    if (!entry) return;
    this.byId.delete(id);
    if (this.idByKey.get(entry.key) === id) this.idByKey.delete(entry.key);
  }

  private remember(generationAtStart: number, value: V | null): V | null {
    if (!value || this.ttlMs <= 0 || generationAtStart !== this.generation) return value;
    const key = this.keyOf(value);
    this.drop(value.id); // re-inserted at the end: the newest
    this.byId.set(value.id, { value, key, expires: this.now() + this.ttlMs });
    this.idByKey.set(key, value.id);
    while (this.byId.size > this.maxEntries) this.drop(this.byId.keys().next().value as number);
    return value;
  }
}

/**
 * Subscribe to an optional capability (a store's `onUserChanged`, `onCaChanged`, ..., a runner's
 * `onOrderSettled`) if the object has it. Returns the unsubscribe function, or null when the store cannot tell (then the TTL is the only
 * bound on staleness). A store that answers every name (a proxy) is ignored quietly.
 */
export function subscribeIfSupported<T>(
  subscribe: ((listener: (value: T) => void) => unknown) | undefined,
  listener: (value: T) => void,
): (() => void) | null {
  if (typeof subscribe !== 'function') return null;
  try {
    const result: unknown = subscribe(listener);
    if (typeof result === 'function') return result as () => void;
    if (result instanceof Promise) result.catch(() => undefined);
  } catch {
    // not the capability after all
  }
  return null;
}
