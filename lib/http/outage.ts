/**
 * The database is unavailable (docs/operations/hostile-clients-and-outages.md "Outages"): the request is answered at once with `503` and a
 * `Retry-After`, instead of a 500 or a request that hangs. Whatever the request would have written
 * was written in one transaction or not at all, so retrying it is safe — a retried sign request makes
 * a second order only if the first one was accepted, which its 200 would have said.
 *
 * The outage is logged once when it starts and then at most every `LOG_EVERY_MS` with the number of
 * requests answered 503 meanwhile: a flood of requests during a database restart does not flood the log.
 * A router gives every module it mounts the same log (lib/http/modules.ts `SharedContext`), so an
 * outage seen by the REST API and the revocation endpoints alike is still logged once. Each 503 is
 * counted by the metrics sink it is given (docs/operations/metrics.md: `ca_api_database_unavailable_total`).
 */
import { NO_METRICS, StoreUnavailableError, type MetricsSink } from '../ports';
import { HttpError } from './http-errors';

/** What the `Retry-After` header tells clients (seconds): a database restart is over in a few. */
export const RETRY_AFTER_SECONDS = 2;

const LOG_EVERY_MS = 10_000;

export function serviceUnavailable(): HttpError {
  return new HttpError(503, 'The service is temporarily unavailable (database). Retry later.', {
    'Retry-After': String(RETRY_AFTER_SECONDS),
  });
}

/** Logs an outage without flooding the log (see the file header). */
export class OutageLog {
  private lastLoggedAt = -Infinity;
  private unlogged = 0;

  constructor(
    private readonly logError: (message: string, error: unknown) => void,
    private readonly clock: () => number = Date.now,
    private readonly metrics: MetricsSink = NO_METRICS,
  ) {}

  /** `error` as a 503 when it is the store's outage error (logged), else null. */
  toHttpError(error: unknown): HttpError | null {
    if (!(error instanceof StoreUnavailableError)) return null;
    this.metrics.storeUnavailable();
    const now = this.clock();
    if (now - this.lastLoggedAt >= LOG_EVERY_MS) {
      const more = this.unlogged ? ` (${this.unlogged} more request(s) answered 503 since the last message)` : '';
      this.logError(`express-ca-api: the database is unavailable; answering 503${more}`, error);
      this.lastLoggedAt = now;
      this.unlogged = 0;
    } else this.unlogged++;
    return serviceUnavailable();
  }
}
