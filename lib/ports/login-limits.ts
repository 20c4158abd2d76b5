/**
 * Brute-force protection of the API's Basic authentication (docs/operations/hostile-clients-and-outages.md "Brute-force protection"); lib/ports/index.ts
 * re-exports it. The router asks before it checks a password, and reports the outcome after: a
 * username or a client address with too many failed attempts is answered `429` with `Retry-After`
 * without its password being checked. Successful requests are never counted, so a client with the
 * right password is never limited by its own traffic.
 */
/** What a failed attempt locked out: the username, the client address, or both. */
export interface LockoutStart {
  lockedOut: ('username' | 'address')[];
  /** Seconds until the lockout ends. */
  retryAfterSeconds: number;
}

export interface LoginAttemptLimiter {
  /**
   * Before the password is checked: seconds until `username` from `address` may try again (0: now),
   * and the username's failures counted so far (the router reports a success only after failures).
   */
  check(username: string, address: string): Promise<{ retryAfterSeconds: number; userFailures: number }>;
  /**
   * A wrong password (or an unknown user) for `username` from `address`. Resolves to what this failure
   * locked out, where the limiter can tell — the username, the address — so that the start of a
   * lockout is recorded once (the audit log's `login.locked_out`); a limiter that cannot tell resolves
   * to nothing.
   */
  failed(username: string, address: string): Promise<LockoutStart | void>;
  /** The right password: the username's count of failures starts again (the address's does not). */
  succeeded(username: string, address: string): Promise<void>;
}
