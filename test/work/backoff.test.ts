/**
 * The one back-off policy of the background work (lib/work/backoff.ts) and the policy of each kind
 * of work (lib/work/policies.ts): exponential from `baseMs`, capped at `maxMs`, with a random half
 * waited off — every wait between half and all of the exponential one, waits of work that failed
 * together spread over that range, and no attempt count large enough to overflow.
 */
import { delayMs, fullDelayMs, type BackoffPolicy } from '../../lib/work/backoff';
import { ACME_RETRY_MAX_MS, BACKOFF_POLICIES, WORK_OUTAGE_MAX_MS } from '../../lib/work/policies';

/** The webhooks' defaults (docs/operations/webhooks.md). */
const WEBHOOKS = BACKOFF_POLICIES.webhookDelivery({ backoffBaseMs: 5000, backoffMaxMs: 3_600_000 });

/** A seeded generator (mulberry32), so that the spread below is the same on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The exponential wait, written out once more here: base · 2^(attempt−1), capped. */
const expected = (p: BackoffPolicy, attempt: number): number => Math.min(p.maxMs, p.baseMs * 2 ** (attempt - 1));

const POLICIES: [string, BackoffPolicy][] = [
  ['work loop outage', BACKOFF_POLICIES.workOutage(1000)],
  ['ACME validation retry', BACKOFF_POLICIES.acmeValidationRetry(2000)],
  ['ACME issuance retry', BACKOFF_POLICIES.acmeIssuanceRetry(2000)],
  ['webhook delivery', WEBHOOKS],
  ['expiry scan retry', BACKOFF_POLICIES.expiryScanRetry(3_600_000)],
  ['an odd base', { baseMs: 333, maxMs: 100_001 }],
];

describe('delayMs', () => {
  test.each(POLICIES)('%s: every attempt waits between half and all of the doubled, capped wait', (_name, policy) => {
    const random = seeded(8555);
    let previousFull = 0;
    for (let attempt = 1; attempt <= 200; attempt++) {
      const full = fullDelayMs(policy, attempt);
      expect(full).toBe(expected(policy, attempt));
      if (attempt > 1) expect(full).toBe(Math.min(policy.maxMs, 2 * previousFull)); // doubling, up to the cap
      previousFull = full;
      for (let i = 0; i < 20; i++) {
        const wait = delayMs(policy, attempt, random);
        expect(Number.isInteger(wait)).toBe(true);
        expect(wait).toBeGreaterThanOrEqual(full / 2); // never below half
        expect(wait).toBeLessThanOrEqual(full); // never above the exponential wait
        expect(wait).toBeLessThanOrEqual(policy.maxMs); // never above the cap
      }
    }
    expect(fullDelayMs(policy, 200)).toBe(policy.maxMs);
  });

  it('doubles from baseMs up to maxMs, from half to all of it', () => {
    for (const [attempts, full] of [
      [1, 5000],
      [2, 10_000],
      [5, 80_000],
      [10, 2_560_000],
      [11, 3_600_000],
      [1000, 3_600_000],
    ] as const) {
      expect(delayMs(WEBHOOKS, attempts, () => 0)).toBe(full / 2);
      expect(delayMs(WEBHOOKS, attempts, () => 0.999_999_999)).toBe(full);
      expect(delayMs(WEBHOOKS, attempts, () => 0.5)).toBe((3 * full) / 4);
    }
  });

  it('does not overflow on huge attempt numbers: the cap, a finite wait, a valid date', () => {
    for (const attempt of [1024, 1025, 1e6, 2 ** 31, 2 ** 53, Number.MAX_SAFE_INTEGER, 1e308, Number.MAX_VALUE, Infinity, NaN]) {
      for (const [, policy] of POLICIES) {
        expect(fullDelayMs(policy, attempt)).toBe(policy.maxMs);
        const wait = delayMs(policy, attempt, () => 0.999_999_999);
        expect(wait).toBe(policy.maxMs);
        expect(Number.isNaN(new Date(Date.now() + wait).getTime())).toBe(false);
      }
    }
    // A zero base (no wait at all) stays zero rather than 0 · 2^1024 = NaN.
    expect(delayMs({ baseMs: 0, maxMs: 1000 }, 5000)).toBe(0);
  });

  it('spreads the waits of work that failed together over the whole range', () => {
    const random = seeded(8555);
    const waits = Array.from({ length: 1000 }, () => delayMs(WEBHOOKS, 3, random));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(10_000);
    expect(Math.max(...waits)).toBeLessThanOrEqual(20_000);
    // Every tenth of the range is hit, none by more than a fifth of the failures.
    const tenths = Array.from({ length: 10 }, (_, i) => waits.filter((w) => Math.min(9, Math.floor((w - 10_000) / 1000)) === i).length);
    for (const n of tenths) expect(n).toBeGreaterThan(50);
    for (const n of tenths) expect(n).toBeLessThan(200);
  });

  it('treats a first attempt counted as 0 (or less) like 1', () => {
    expect(delayMs(WEBHOOKS, 0, () => 0)).toBe(2500);
    expect(delayMs(WEBHOOKS, -3, () => 0)).toBe(2500);
  });

  it("waits exactly the exponential wait with jitter 'none', and jitters by default", () => {
    const exact: BackoffPolicy = { baseMs: 1000, maxMs: 30_000, jitter: 'none' };
    expect([1, 2, 3, 6, 99].map((a) => delayMs(exact, a, () => 0))).toEqual([1000, 2000, 4000, 30_000, 30_000]);
    expect(delayMs({ baseMs: 1000, maxMs: 30_000 }, 1, () => 0)).toBe(500);
  });

  it('caps a base above the maximum at the maximum', () => {
    const policy = BACKOFF_POLICIES.workOutage(60_000);
    expect([1, 2, 50].map((a) => fullDelayMs(policy, a))).toEqual([30_000, 30_000, 30_000]);
  });
});

describe('the policy of each kind of work keeps its settings and defaults', () => {
  const fulls = (p: BackoffPolicy, n: number): number[] => Array.from({ length: n }, (_, i) => fullDelayMs(p, i + 1));

  test('work loop outage: from the poll interval (at least 100 ms), doubling to 30 s', () => {
    expect(fulls(BACKOFF_POLICIES.workOutage(1000), 7)).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    expect(fulls(BACKOFF_POLICIES.workOutage(20), 3)).toEqual([100, 200, 400]);
    expect(WORK_OUTAGE_MAX_MS).toBe(30_000);
  });

  test('ACME validation and issuance retry: from validationRetryMs, doubling, at most an hour', () => {
    // With the defaults (validationRetryMs 2000, 5 attempts) the waits are today's: the cap does not count.
    expect(fulls(BACKOFF_POLICIES.acmeValidationRetry(2000), 4)).toEqual([2000, 4000, 8000, 16_000]);
    expect(fulls(BACKOFF_POLICIES.acmeIssuanceRetry(2000), 4)).toEqual([2000, 4000, 8000, 16_000]);
    expect(ACME_RETRY_MAX_MS).toBe(3_600_000);
    expect(fullDelayMs(BACKOFF_POLICIES.acmeValidationRetry(2000), 12)).toBe(3_600_000); // 2000 · 2^11 = 4 096 000: capped
    expect(fullDelayMs(BACKOFF_POLICIES.acmeIssuanceRetry(1500), 40)).toBe(3_600_000);
  });

  test('webhook delivery: backoffBaseMs doubling to backoffMaxMs', () => {
    expect(fulls(BACKOFF_POLICIES.webhookDelivery({ backoffBaseMs: 10, backoffMaxMs: 50 }), 5)).toEqual([10, 20, 40, 50, 50]);
  });
});
