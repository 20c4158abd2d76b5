/**
 * `retryDelayMs` (lib/webhooks/backoff.ts): the exponential back-off of a failed delivery, capped,
 * with a random half waited off — every wait between half and all of the exponential one, and waits
 * of endpoints that failed together spread over that range.
 */
import { retryDelayMs } from '../../lib/webhooks/backoff';

const SETTINGS = { backoffBaseMs: 5000, backoffMaxMs: 3_600_000 };

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

describe('retryDelayMs', () => {
  it('doubles from backoffBaseMs up to backoffMaxMs, from half to all of it', () => {
    for (const [attempts, full] of [
      [1, 5000],
      [2, 10_000],
      [5, 80_000],
      [10, 2_560_000],
      [11, 3_600_000],
      [1000, 3_600_000],
    ] as const) {
      expect(retryDelayMs(attempts, SETTINGS, () => 0)).toBe(full / 2);
      expect(retryDelayMs(attempts, SETTINGS, () => 0.999_999_999)).toBe(full);
      expect(retryDelayMs(attempts, SETTINGS, () => 0.5)).toBe((3 * full) / 4);
    }
  });

  it('spreads the waits of endpoints that failed together over the whole range', () => {
    const random = seeded(8555);
    const waits = Array.from({ length: 1000 }, () => retryDelayMs(3, SETTINGS, random));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(10_000);
    expect(Math.max(...waits)).toBeLessThanOrEqual(20_000);
    // Every tenth of the range is hit, none by more than a fifth of the endpoints.
    const tenths = Array.from({ length: 10 }, (_, i) => waits.filter((w) => Math.min(9, Math.floor((w - 10_000) / 1000)) === i).length);
    for (const n of tenths) expect(n).toBeGreaterThan(50);
    for (const n of tenths) expect(n).toBeLessThan(200);
  });

  it('treats a first attempt counted as 0 like 1', () => {
    expect(retryDelayMs(0, SETTINGS, () => 0)).toBe(2500);
  });
});
