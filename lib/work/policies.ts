/**
 * The back-off of every kind of background work, in one place (docs/DESIGN.md "Back-off"): each a
 * `BackoffPolicy` (lib/work/backoff.ts) built from the settings users already have for it, so that
 * those settings keep their names and defaults where they are documented (docs/guides/acme.md,
 * "Webhooks", "Outages") and only the arithmetic is shared. Every one has equal jitter.
 */
import type { BackoffPolicy } from './backoff';

/** The longest wait of a work loop (lib/work/loop.ts) between two rounds in a database outage. */
export const WORK_OUTAGE_MAX_MS = 30_000;
/** The shortest first wait of that back-off, whatever the poll interval (a 20 ms poll would hammer a dead database). */
export const WORK_OUTAGE_MIN_BASE_MS = 100;

/**
 * The longest wait before another ACME validation or issuance attempt. With the defaults (5
 * attempts from 2 s) the longest wait is 16 s and this never counts; it counts when
 * `validationAttempts` or `validationRetryMs` are raised: a wait past an hour outlasts an order of the
 * default life (`CA_ACME_ORDER_VALIDITY`, 1 hour) and would only end in its expiry, and an order that
 * lives up to a day is then still tried at least hourly. The same hour as the webhooks' default cap.
 */
export const ACME_RETRY_MAX_MS = 3_600_000;

/** The longest wait before another attempt at a REST order the store refused. */
export const REST_ORDER_RETRY_MAX_MS = 30_000;

export const BACKOFF_POLICIES = {
  /**
   * A database outage, for every work loop (lib/work/loop.ts: the REST order runner, the job runner of
   * lib/work/jobs-runner.ts: webhook delivery, the expiry scan, ACME validation, issuance and expiry): rounds failing with a lost connection wait from the loop's interval (at
   * least 100 ms), doubling, up to 30 s.
   */
  workOutage: (intervalMs: number): BackoffPolicy => ({
    baseMs: Math.max(WORK_OUTAGE_MIN_BASE_MS, intervalMs),
    maxMs: WORK_OUTAGE_MAX_MS,
    jitter: 'equal',
  }),
  /** ACME validation retry (lib/acme/runner.ts, the `acme_validation` jobs): from `acme.validationRetryMs` (2000 ms), doubling, up to an hour. */
  acmeValidationRetry: (validationRetryMs: number): BackoffPolicy => ({
    baseMs: validationRetryMs,
    maxMs: ACME_RETRY_MAX_MS,
    jitter: 'equal',
  }),
  /** ACME issuance retry (lib/acme/runner.ts, the `acme_issuance` jobs): an issuance the store or a key backend failed, as validations. */
  acmeIssuanceRetry: (validationRetryMs: number): BackoffPolicy => ({
    baseMs: validationRetryMs,
    maxMs: ACME_RETRY_MAX_MS,
    jitter: 'equal',
  }),
  /**
   * A REST order the store refused (lib/ca/order-runner/single-order.ts, a `rest_order` job): tried
   * again from the runner's poll interval (`pollIntervalMs`, 1 s; at least 100 ms), doubling, up to
   * 30 s; after `maxAttempts` (3) failed attempts the order fails with the reason.
   */
  restOrderRetry: (pollIntervalMs: number): BackoffPolicy => ({
    baseMs: Math.max(WORK_OUTAGE_MIN_BASE_MS, pollIntervalMs),
    maxMs: REST_ORDER_RETRY_MAX_MS,
    jitter: 'equal',
  }),
  /** The ACME expiry (lib/acme/runner.ts, a recurring job every `everyMs`): one the store failed is tried again after that long, not sooner. */
  acmeExpiryRetry: (everyMs: number): BackoffPolicy => ({
    baseMs: everyMs,
    maxMs: everyMs,
    jitter: 'equal',
  }),
  /** Webhook delivery (lib/webhooks/delivery.ts): from `backoffBaseMs` (5 s), doubling, up to `backoffMaxMs` (1 hour). */
  webhookDelivery: (settings: { backoffBaseMs: number; backoffMaxMs: number }): BackoffPolicy => ({
    baseMs: settings.backoffBaseMs,
    maxMs: settings.backoffMaxMs,
    jitter: 'equal',
  }),
  /**
   * The expiry scan (lib/webhooks/delivery.ts, a recurring job): a scan the store failed is tried again
   * from a minute (or the scan interval, when shorter), doubling, up to the scan interval.
   */
  expiryScanRetry: (expiringScanMs: number): BackoffPolicy => ({
    baseMs: Math.min(60_000, expiringScanMs),
    maxMs: expiringScanMs,
    jitter: 'equal',
  }),
} as const;
