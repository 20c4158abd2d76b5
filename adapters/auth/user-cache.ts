/**
 * User rows (with their permissions and per-CA grants) kept in memory for a short while, so that an
 * authenticated request with cached credentials costs no database round trip for the user or its
 * permissions.
 *
 * Freshness:
 * - in this process, a change made through a store with `onUserChanged` (lib/ports; the knex store
 *   has it) drops the user's entry as soon as the change is committed — password, permission and
 *   per-CA grant changes take effect on the very next request;
 * - changes made elsewhere (another process on the same PostgreSQL, a host writing SQL directly, a
 *   store without change events) are seen once the entry is older than `ttlMs` (default 2 s): that is
 *   the bound on cross-process staleness.
 * A read that raced with an invalidation is not kept, and unknown users are never cached (the rules
 * of lib/cache/record-cache.ts): a user created elsewhere can log in at once. Per-CA grants name the
 * CA by serial, which never changes, so changes to CA rows need not reach this cache.
 */
import { RecordCache, subscribeIfSupported } from '../../lib/cache/record-cache';
import type { Store, UserChangeEvents, UserRecord } from '../../lib/ports';

export interface UserCacheOptions {
  /** How long a row is trusted without re-reading it; default 2000 ms. 0 disables the cache. */
  ttlMs?: number;
  /** Upper bound on cached users; the oldest go first. Default 10 000. */
  maxEntries?: number;
  /** Clock, for tests. */
  now?: () => number;
}

export const DEFAULT_USER_CACHE_TTL_MS = 2000;

export class UserCache {
  private readonly cache: RecordCache<UserRecord>;
  private readonly unsubscribe: (() => void) | null;

  constructor(
    private readonly store: Pick<Store, 'findUser' | 'getUserById'> & Partial<UserChangeEvents>,
    options: UserCacheOptions = {},
  ) {
    this.cache = new RecordCache((user) => user.username, {
      ttlMs: options.ttlMs ?? DEFAULT_USER_CACHE_TTL_MS,
      maxEntries: options.maxEntries ?? 10_000,
      now: options.now,
    });
    this.unsubscribe = subscribeIfSupported(store.onUserChanged?.bind(store), (id) => this.cache.invalidate(id));
  }

  /** The user named `username` (case-sensitive), or null. */
  findUser(username: string): Promise<UserRecord | null> {
    return this.cache.read(username, () => this.store.findUser(username));
  }

  /** The user with this id, or null. */
  getUserById(id: number): Promise<UserRecord | null> {
    return this.cache.readById(id, () => this.store.getUserById(id));
  }

  /** Forget a user (the store's change events call this; hosts may too). */
  invalidate(id: number): void {
    this.cache.invalidate(id);
  }

  /** Forget a user by name (for hosts that change users behind the store's back). */
  invalidateUsername(username: string): void {
    this.cache.invalidateKey(username);
  }

  clear(): void {
    this.cache.clear();
  }

  /** Stop listening to the store's change events. */
  close(): void {
    this.unsubscribe?.();
    this.clear();
  }

  get size(): number {
    return this.cache.size;
  }
}
