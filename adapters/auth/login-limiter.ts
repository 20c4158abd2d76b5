/**
 * The default `LoginAttemptLimiter` (lib/ports/login-limits.ts), on rate-limiter-flexible: failed
 * attempts counted per username and per client address in a fixed window; a key at its limit is
 * refused until its window ends.
 *
 * - `loginAttemptLimiter()` keeps the counts in memory: right for one process.
 * - `databaseLoginAttemptLimiter(db)` keeps them in a table of a PostgreSQL database
 *   (`ca_api_login_failures`, created if missing), so that several instances behind one load balancer
 *   share them: an attacker gains nothing by spreading attempts over the instances.
 *
 * Usernames are hashed into the key (any length, any characters, never stored in the clear).
 */
import { createHash } from 'crypto';
import type { Knex } from 'knex';
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract, type RateLimiterRes } from 'rate-limiter-flexible';
import type { LockoutStart, LoginAttemptLimiter } from '../../lib/ports';
import { mapDatabaseError } from '../store/knex/errors';

export interface LoginAttemptLimits {
  /** Failed attempts for one username (from any address) within the window. Default 10. */
  maxFailuresPerUser?: number;
  /** Failed attempts from one client address (for any usernames) within the window. Default 30. */
  maxFailuresPerAddress?: number;
  /** The window in seconds, from a key's first failure; a key at its limit waits for its end. Default 900. */
  windowSeconds?: number;
}

export const DEFAULT_LOGIN_ATTEMPT_LIMITS: Required<LoginAttemptLimits> = {
  maxFailuresPerUser: 10,
  maxFailuresPerAddress: 30,
  windowSeconds: 900,
};

const TABLE = 'ca_api_login_failures';

/** Limits checked once, with the option named in the message. */
function checked(limits: LoginAttemptLimits): Required<LoginAttemptLimits> {
  const all = { ...DEFAULT_LOGIN_ATTEMPT_LIMITS, ...limits };
  for (const [name, value] of Object.entries(all)) {
    if (!Number.isInteger(value) || value < 1)
      throw new TypeError(`login attempt limits: ${name} must be a positive integer (got ${String(value)})`);
  }
  return all;
}

const userKey = (username: string): string => `u:${createHash('sha256').update(username, 'utf8').digest('base64url')}`;
const addressKey = (address: string): string => `a:${address.slice(0, 100)}`;

class CountingLimiter implements LoginAttemptLimiter {
  constructor(
    private readonly users: RateLimiterAbstract,
    private readonly addresses: RateLimiterAbstract,
  ) {}

  async check(username: string, address: string): Promise<{ retryAfterSeconds: number; userFailures: number }> {
    const [user, from] = await Promise.all([this.users.get(userKey(username)), this.addresses.get(addressKey(address))]);
    return {
      retryAfterSeconds: Math.max(waitOf(user, this.users.points), waitOf(from, this.addresses.points)),
      userFailures: user?.consumedPoints ?? 0,
    };
  }

  /** The failure that reaches a key's limit starts its lockout: reported once per window, as the count only rises. */
  async failed(username: string, address: string): Promise<LockoutStart | void> {
    const [user, from] = await Promise.all([spend(this.users, userKey(username)), spend(this.addresses, addressKey(address))]);
    const lockedOut: LockoutStart['lockedOut'] = [];
    if (user?.consumedPoints === this.users.points) lockedOut.push('username');
    if (from?.consumedPoints === this.addresses.points) lockedOut.push('address');
    if (!lockedOut.length) return;
    return { lockedOut, retryAfterSeconds: Math.max(waitOf(user, this.users.points), waitOf(from, this.addresses.points)) };
  }

  async succeeded(username: string): Promise<void> {
    await this.users.delete(userKey(username));
  }
}

/** Seconds until a key at its limit may try again (0 below the limit). */
function waitOf(res: RateLimiterRes | null, points: number): number {
  if (!res || res.consumedPoints < points) return 0;
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}

/** Count one failure; going over the limit is not an error here (the next check refuses). The count after it. */
async function spend(limiter: RateLimiterAbstract, key: string): Promise<RateLimiterRes | null> {
  try {
    return await limiter.consume(key, 1);
  } catch (e) {
    if (e instanceof Error) throw e; // the store failed; a RateLimiterRes means "over the limit"
    return (e as RateLimiterRes | null) ?? null;
  }
}

/** Failed Basic-auth attempts counted in this process's memory (the router's default). */
export function loginAttemptLimiter(limits: LoginAttemptLimits = {}): LoginAttemptLimiter {
  const l = checked(limits);
  return new CountingLimiter(
    new RateLimiterMemory({ keyPrefix: 'user', points: l.maxFailuresPerUser, duration: l.windowSeconds }),
    new RateLimiterMemory({ keyPrefix: 'address', points: l.maxFailuresPerAddress, duration: l.windowSeconds }),
  );
}

/** A limiter whose errors are the store's typed errors: a database outage is a 503, not a 500. */
function mappingStoreErrors(limiter: LoginAttemptLimiter): LoginAttemptLimiter {
  const mapped =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } catch (e) {
        throw mapDatabaseError(e);
      }
    };
  return {
    check: mapped(limiter.check.bind(limiter)),
    failed: mapped(limiter.failed.bind(limiter)),
    succeeded: mapped(limiter.succeeded.bind(limiter)),
  };
}

/**
 * Failed attempts counted in a PostgreSQL database (a `pg` knex instance; not embedded PGlite, which
 * one process holds anyway), shared by every instance that uses the same database. Resolves once the
 * table exists.
 */
export async function databaseLoginAttemptLimiter(db: Knex, limits: LoginAttemptLimits = {}): Promise<LoginAttemptLimiter> {
  const l = checked(limits);
  // Expired rows are deleted every 5 minutes (an unref'd timer) by one of the two; they share the table.
  const make = (keyPrefix: string, points: number, clearExpired: boolean) =>
    new Promise<RateLimiterPostgres>((resolve, reject) => {
      const limiter: RateLimiterPostgres = new RateLimiterPostgres(
        {
          storeClient: db,
          storeType: 'knex',
          tableName: TABLE,
          keyPrefix,
          points,
          duration: l.windowSeconds,
          clearExpiredByTimeout: clearExpired,
        },
        (err?: unknown) => (err ? reject(mapDatabaseError(err) as Error) : resolve(limiter)),
      );
    });
  // One after the other: both create the same table.
  const users = await make('user', l.maxFailuresPerUser, true);
  const addresses = await make('address', l.maxFailuresPerAddress, false);
  return mappingStoreErrors(new CountingLimiter(users, addresses));
}
