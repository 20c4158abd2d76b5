/**
 * How long an endpoint waits after a failed delivery (README "Webhooks"): exponential back-off,
 * `backoffBaseMs · 2^(attempts−1)` capped at `backoffMaxMs`, of which a random half is waited off
 * ("equal jitter"). Endpoints that failed together — a receiver's outage behind one load balancer, a
 * network partition — then come back spread out instead of all in the same turn, and every wait is
 * still at least half the exponential one.
 */
export function retryDelayMs(
  attempts: number,
  settings: { backoffBaseMs: number; backoffMaxMs: number },
  random: () => number = Math.random,
): number {
  const { backoffBaseMs, backoffMaxMs } = settings;
  const full = Math.min(backoffMaxMs, backoffBaseMs * 2 ** Math.min(Math.max(attempts, 1) - 1, 30));
  return Math.round(full / 2 + random() * (full / 2));
}
