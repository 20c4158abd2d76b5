/**
 * User rows (with their permissions) kept in memory for a short while, so that an authenticated
 * request with cached credentials costs no database round trip for the user or its permissions.
 *
 * Freshness:
 * - in this process, a change made through a store with `onUserChanged` (lib/ports.ts; the knex store
 *   has it) drops the user's entry as soon as the change is committed — password and permission
 *   changes take effect on the very next request;
 * - changes made elsewhere (another process on the same PostgreSQL, a host writing SQL directly, a
 *   store without change events) are seen once the entry is older than `ttlMs` (default 2 s): that is
 *   the bound on cross-process staleness.
 * A read that raced with an invalidation is not cached (generation counter), so a row read just
 *   before a commit cannot outlive the notification of that commit.
 * Unknown users are never cached: a user created elsewhere can log in at once.
 */
import { hasUserChangeEvents, type Store, type UserRecord } from '../../lib/ports';

export interface UserCacheOptions {
  /** How long a row is trusted without re-reading it; default 2000 ms. 0 disables the cache. */
  ttlMs?: number;
  /** Upper bound on cached users; the oldest go first. Default 10 000. */
  maxEntries?: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface Entry {
  user: UserRecord;
  expires: number;
}

export const DEFAULT_USER_CACHE_TTL_MS = 2000;

export class UserCache {
  private readonly byId = new Map<number, Entry>();
  private readonly idByUsername = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private generation = 0;
  private readonly unsubscribe: (() => void) | null;

  constructor(
    private readonly store: Pick<Store, 'findUser' | 'getUserById'>,
    options: UserCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_USER_CACHE_TTL_MS;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
    this.unsubscribe = this.subscribe(store);
  }

  /** Listen to the store's change events if it has them (a store without them gets the TTL only). */
  private subscribe(store: object): (() => void) | null {
    if (!hasUserChangeEvents(store)) return null;
    try {
      const result: unknown = store.onUserChanged((id) => this.invalidate(id));
      if (typeof result === 'function') return result as () => void;
      // Not the capability after all (e.g. a proxy that answers every name): ignore it quietly.
      if (result instanceof Promise) result.catch(() => undefined);
    } catch {
      // as above
    }
    return null;
  }

  /** The user named `username` (case-sensitive), or null. */
  async findUser(username: string): Promise<UserRecord | null> {
    const id = this.idByUsername.get(username);
    const hit = id === undefined ? null : this.fresh(id);
    if (hit) return hit;
    return this.remember(this.generation, await this.store.findUser(username));
  }

  /** The user with this id, or null. */
  async getUserById(id: number): Promise<UserRecord | null> {
    const hit = this.fresh(id);
    if (hit) return hit;
    return this.remember(this.generation, await this.store.getUserById(id));
  }

  /** Forget a user (the store's change events call this; hosts may too). */
  invalidate(id: number): void {
    this.generation++;
    this.drop(id);
  }

  private drop(id: number): void {
    const entry = this.byId.get(id);
    if (entry) {
      this.byId.delete(id);
      if (this.idByUsername.get(entry.user.username) === id) this.idByUsername.delete(entry.user.username);
    }
  }

  /** Forget a user by name (for hosts that change users behind the store's back). */
  invalidateUsername(username: string): void {
    this.generation++;
    const id = this.idByUsername.get(username);
    if (id !== undefined) this.drop(id);
  }

  clear(): void {
    this.generation++;
    this.byId.clear();
    this.idByUsername.clear();
  }

  /** Stop listening to the store's change events. */
  close(): void {
    this.unsubscribe?.();
    this.clear();
  }

  get size(): number {
    return this.byId.size;
  }

  private fresh(id: number): UserRecord | null {
    const entry = this.byId.get(id);
    if (!entry) return null;
    if (entry.expires > this.now()) return entry.user;
    this.drop(id);
    return null;
  }

  /** Cache what a read returned, unless an invalidation happened while it was under way. */
  private remember(generationAtStart: number, user: UserRecord | null): UserRecord | null {
    if (!user || this.ttlMs <= 0 || generationAtStart !== this.generation) return user;
    const previous = this.byId.get(user.id);
    if (previous && previous.user.username !== user.username) this.idByUsername.delete(previous.user.username);
    this.byId.delete(user.id); // re-insert at the end (newest)
    this.byId.set(user.id, { user, expires: this.now() + this.ttlMs });
    this.idByUsername.set(user.username, user.id);
    while (this.byId.size > this.maxEntries) {
      this.drop(this.byId.keys().next().value as number);
    }
    return user;
  }
}
