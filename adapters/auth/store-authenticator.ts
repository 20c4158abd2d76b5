/**
 * The default `Authenticator`: users and bcrypt hashes from the store.
 *
 * - bcrypt runs in a worker pool (bcrypt-pool.ts), never on the event loop.
 * - An unknown username costs the same as a wrong password: a compare against a dummy hash of the
 *   same cost (D6), so response times do not tell which usernames exist. "The same cost" is the cost
 *   of the users' own hashes (the last one read), not a constant: a host that hashes at cost 12 (or a
 *   test at 4) would otherwise answer unknown users measurably faster (or slower) than known ones.
 * - Verified credentials are cached briefly (credential-cache.ts) and trusted only while the user row
 *   is unchanged. The row itself comes from a `UserCache` (user-cache.ts): no database round trip
 *   while it is fresh; dropped at once when this process changes the user through the store, re-read
 *   after at most its TTL (2 s) otherwise.
 * - Concurrent requests with the same credentials share one compare. Without that, a burst of N
 *   clients using one API user (a cold start, or the moment its cache entry expires) cost N compares
 *   of ~80 ms each: measured under bench/api, 32 clients spent 3 s of CPU on one login.
 */
import { randomBytes } from 'crypto';
import type { ApiUser, Authenticator, Store } from '../../lib/ports';
import { BcryptPool, type BcryptPoolOptions } from './bcrypt-pool';
import { CredentialCache, type CredentialCacheOptions } from './credential-cache';
import { UserCache, type UserCacheOptions } from './user-cache';

/**
 * A bcrypt hash (cost 10) of 24 random bytes nobody kept. Compared against when the user does not
 * exist and no user's hash has been read yet; cost 10 matches the hashes `create_api_user` writes.
 */
export const DUMMY_BCRYPT_HASH = '$2b$10$E1yJy18FJXzPULCw82w1deTL77fReu7kJo4U0mmc182p0aWzr6mIW';

/** The cost of a `$2a$`/`$2b$`/`$2y$` hash, or undefined for anything else. */
export function bcryptCost(hash: string): number | undefined {
  const m = /^\$2[aby]\$(\d{2})\$/.exec(hash);
  return m ? Number(m[1]) : undefined;
}

export interface StoreAuthenticatorOptions {
  /** Share a pool between authenticators; by default each creates (and closes) its own. */
  pool?: BcryptPool;
  poolOptions?: BcryptPoolOptions;
  cache?: CredentialCacheOptions;
  /** Share the user rows with a permission checker; by default each creates (and closes) its own. */
  users?: UserCache;
  userCacheOptions?: UserCacheOptions;
}

export interface StoreAuthenticator extends Authenticator {
  readonly pool: BcryptPool;
  readonly cache: CredentialCache;
  readonly users: UserCache;
  /** Forget cached credentials of a user (for hosts that change users without bumping `updated`). */
  invalidate(username: string): void;
  /** Stop the pool threads (if this authenticator created the pool). */
  close(): Promise<void>;
}

export function storeAuthenticator(
  store: Pick<Store, 'findUser' | 'getUserById'>,
  options: StoreAuthenticatorOptions = {},
): StoreAuthenticator {
  const ownsPool = options.pool === undefined;
  const pool = options.pool ?? new BcryptPool(options.poolOptions);
  const cache = new CredentialCache(options.cache);
  const ownsUsers = options.users === undefined;
  const users = options.users ?? new UserCache(store, options.userCacheOptions);
  /** Compares under way, by credential key + the hash compared against; removed when settled. */
  const inFlight = new Map<string, Promise<boolean>>();
  /** Dummy hashes by cost, made in the pool the first time a user's hash of that cost is read. */
  const dummies = new Map<number, Promise<string>>([[10, Promise.resolve(DUMMY_BCRYPT_HASH)]]);
  let usersCost = 10;

  function noteCost(hash: string): void {
    const cost = bcryptCost(hash);
    if (cost === undefined) return;
    usersCost = cost;
    if (!dummies.has(cost)) {
      const made = pool.hash(randomBytes(24).toString('base64'), cost);
      dummies.set(
        cost,
        made.catch(() => DUMMY_BCRYPT_HASH),
      ); // a closed pool: the compare fails anyway
    }
  }

  /** bcrypt in the pool, shared with any identical compare already under way. */
  function compareOnce(username: string, password: string, hash: string): Promise<boolean> {
    const key = `${cache.key(username, password)}\0${hash}`;
    let pending = inFlight.get(key);
    if (!pending) {
      pending = pool.compare(password, hash).then(
        (match) => match,
        () => false, // an unreadable stored hash is a failed login, not a server error
      );
      inFlight.set(key, pending);
      void pending.finally(() => inFlight.delete(key)); // `pending` never rejects
    }
    return pending;
  }

  return {
    pool,
    cache,
    users,
    invalidate: (username) => {
      cache.invalidateUser(username);
      users.invalidateUsername(username);
    },
    close: async () => {
      cache.clear();
      if (ownsUsers) users.close();
      if (ownsPool) await pool.close();
    },
    async authenticate(username: string, password: string): Promise<ApiUser | null> {
      const user = await users.findUser(username);
      if (user) {
        noteCost(user.passwordHash);
        const cached = cache.get(username, password);
        if (cached && cached.userId === user.id && cached.userUpdated === user.updated.getTime()) {
          return { id: user.id, username: user.username };
        }
      }
      const hash = user ? user.passwordHash : await (dummies.get(usersCost) ?? DUMMY_BCRYPT_HASH);
      const match = await compareOnce(username, password, hash);
      if (!user || !match) return null;
      cache.set(username, password, { userId: user.id, userUpdated: user.updated.getTime() });
      return { id: user.id, username: user.username };
    },
  };
}
