/**
 * Per-endpoint request budgets (docs/guides/est.md, docs/guides/scep.md: `requestsPerMinute`): a token bucket per
 * endpoint in this process, so that one flood of requests — a misconfigured fleet retrying in a loop,
 * or someone guessing challenge passwords — cannot take the CA's signing capacity from every other
 * endpoint. A request over budget is refused before it is read, authenticated or signed: 429 with a
 * `Retry-After` (RFC 6585 §4). Only what enrols is counted (`simpleenroll`, `simplereenroll`,
 * `serverkeygen`, `PKIOperation`), not the CA certificates and capabilities a client reads first.
 *
 * In memory: several instances each grant the budget (it bounds each process's work, which is what it
 * protects). Buckets exist only for endpoints that have a budget, so their number is bounded by the
 * configuration.
 */
import { EnrolmentError } from './errors';

/** The largest budget an endpoint takes (options, `ca-admin`, migration 0027's check). */
export const MAX_REQUESTS_PER_MINUTE = 1_000_000;

/** Whether `value` is a budget an endpoint takes: a whole number of requests a minute, 1 to MAX_REQUESTS_PER_MINUTE. */
export function isRequestBudget(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_REQUESTS_PER_MINUTE;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class EndpointRateLimits {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Take one request from the budget of `endpoint` (`requestsPerMinute`, refilled evenly, at most a
   * minute's worth saved up): null when granted, else the whole seconds until one is.
   */
  take(endpoint: string, requestsPerMinute: number): number | null {
    const now = this.now();
    const perMs = requestsPerMinute / 60_000;
    const bucket = this.buckets.get(endpoint) ?? { tokens: requestsPerMinute, at: now };
    bucket.tokens = Math.min(requestsPerMinute, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.buckets.set(endpoint, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return null;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
  }
}

/** An enrolment request at `endpoint` of `protocol`, counted against its budget; over it: 429. */
export function spendRequest(
  limits: EndpointRateLimits | undefined,
  protocol: 'EST' | 'SCEP',
  endpoint: { label: string; requestsPerMinute: number | null },
): void {
  if (!limits || endpoint.requestsPerMinute === null) return;
  const wait = limits.take(`${protocol}/${endpoint.label}`, endpoint.requestsPerMinute);
  if (wait !== null) {
    throw new EnrolmentError(
      429,
      `Too many requests at this ${protocol} endpoint: it takes ${endpoint.requestsPerMinute} a minute. Try again in ${wait} s.`,
      'badRequest',
      wait,
    );
  }
}
