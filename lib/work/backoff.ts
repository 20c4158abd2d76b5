/**
 * The one back-off policy of the background work (docs/DESIGN.md "Back-off"): how long to wait after
 * a failed attempt before the next. Exponential — `baseMs · 2^(attempt−1)` — so that a failure that
 * lasts (a receiver down, a database away, a DNS record not yet there) is asked about less and less
 * often; capped at `maxMs`, so that once it passes the work resumes within a known time, and a large
 * attempt count never yields an infinite or unrepresentable time.
 *
 * Jitter, by default "equal jitter": a random half of the wait is waited off, so every wait is at
 * least half the exponential one (the back-off still backs off) and work that failed together — the
 * deliveries to one receiver's load balancer, every instance's runner in one database outage, many
 * validations behind one resolver — comes back spread over the other half instead of all in the same
 * turn. `none` keeps the exact exponential wait (for callers that must be predictable to the
 * millisecond). Policies per kind of work: lib/work/policies.ts.
 */

/** `equal`: a wait between half and all of the exponential one; `none`: exactly the exponential one. */
export type Jitter = 'equal' | 'none';

export interface BackoffPolicy {
  /** The wait after the first failed attempt (before jitter). */
  readonly baseMs: number;
  /** The longest wait (before jitter): the exponential one stops growing here. */
  readonly maxMs: number;
  /** Default `equal`. */
  readonly jitter?: Jitter;
}

/**
 * Doubling stops here: 2^52 times any base is past every cap worth having, and still a finite
 * number, so that `attempt` may be as large as a counter gets (or Infinity) without the product
 * overflowing — 2^1024 is Infinity, and a zero base times Infinity is NaN, which no timer or Date takes.
 */
const MAX_DOUBLINGS = 52;

/** The exponential wait of `attempt`, capped: what jitter takes from (never below `baseMs`'s share, never above `maxMs`). */
export function fullDelayMs(policy: BackoffPolicy, attempt: number): number {
  // The first failed attempt (numbered 1; 0 or less counts as 1) waits `baseMs`.
  const doublings = Number.isFinite(attempt) ? Math.min(Math.max(Math.floor(attempt), 1) - 1, MAX_DOUBLINGS) : MAX_DOUBLINGS;
  return Math.min(policy.maxMs, policy.baseMs * 2 ** doublings);
}

/**
 * The wait, in whole milliseconds, after failed attempt number `attempt` (1 for the first failure).
 * `random` returns a number in [0, 1), as Math.random does; tests pass a seeded one.
 */
export function delayMs(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const full = fullDelayMs(policy, attempt);
  if (policy.jitter === 'none') return Math.round(full);
  // Rounded, half + [0, half) stays within [half, full] for a whole `full`.
  return Math.round(full / 2 + random() * (full / 2));
}
