/**
 * Metrics (docs/operations/metrics.md): what the library's services report as they work, and the exposition
 * the metrics module serves. The services call a `MetricsSink` where one is wired in and `NO_METRICS`
 * (which does nothing) otherwise; the default implementation is prom-client's (adapters/metrics).
 *
 * What the store already records durably — certificates issued and revoked, orders failed — is not
 * reported here: the exposition reads it from the domain events (lib/ports/events.ts), so that it
 * counts every way in and every process on the same database alike.
 */
import type { CrlScope } from './revocation';

/** How a sign request's certificate came to be: signed in the request, or by the order runner later. */
export type IssuancePath = 'in_request' | 'queued';

/**
 * The answer to one OCSP request (RFC 6960): the certificate status when the request was answered
 * (several certificates in one request: `revoked` if any is, else `unknown` if any is, else `good`),
 * else the response status (§4.2.1) that refused it.
 */
export type OcspAnswer = 'good' | 'revoked' | 'unknown' | 'malformed_request' | 'unauthorized' | 'internal_error';

/**
 * What happened to an ACME order (RFC 8555 §7.1.6) in this process: `created` by newOrder, `valid`
 * once its certificate is stored, `invalid` when a validation or its issuance failed for good or it
 * expired unfinished.
 */
export type AcmeOrderOutcome = 'created' | 'valid' | 'invalid';

/** One CRL built (lib/ca/crls.ts). */
export interface CrlBuild {
  /** The name of the CA. */
  ca: string;
  scope: CrlScope | 'all';
  seconds: number;
  /** Size of the DER CRL. */
  bytes: number;
  /** Revoked certificates it lists. */
  entries: number;
}

/** One attempt to deliver one event to one webhook endpoint (lib/webhooks/delivery.ts). */
export interface WebhookAttempt {
  /** The endpoint's id. */
  endpoint: number;
  /** `delivered`: answered 2xx; `failed`: to be retried; `dead_letter`: failed for the last time. */
  outcome: 'delivered' | 'failed' | 'dead_letter';
  /** How long the request took. */
  seconds: number;
  /** How long after the event committed the attempt ended. */
  lagSeconds: number;
}

/**
 * Observations of the services. Every method returns at once and does no I/O: several run on the
 * request path (a sign request, an OCSP request, a login), where nothing but a counter may be touched.
 */
export interface MetricsSink {
  /** A sign request's certificate was stored, `seconds` after the request (docs/operations/metrics.md says from when). */
  issuanceCompleted(path: IssuancePath, seconds: number): void;
  ocspAnswered(answer: OcspAnswer): void;
  crlBuilt(crl: CrlBuild): void;
  /** Basic-auth credentials were refused: an unknown username or a wrong password. */
  loginFailed(): void;
  /** A request was answered 429: its username or address is at its limit of failed logins. */
  loginRateLimited(): void;
  /** `count` ACME orders (default 1) reached `outcome`. */
  acmeOrders(outcome: AcmeOrderOutcome, count?: number): void;
  /** A request was answered 503 because the database is unavailable (docs/operations/hostile-clients-and-outages.md "Outages"). */
  storeUnavailable(): void;
  /** A webhook delivery attempt ended (optional: sinks written before webhooks need not have it). */
  webhookDelivery?(attempt: WebhookAttempt): void;
}

/** The sink of a library without metrics: does nothing. */
export const NO_METRICS: MetricsSink = Object.freeze({
  issuanceCompleted: () => {},
  ocspAnswered: () => {},
  crlBuilt: () => {},
  loginFailed: () => {},
  loginRateLimited: () => {},
  acmeOrders: () => {},
  storeUnavailable: () => {},
});

/** The method names of `MetricsSink`, to check a host's sink when it is given. */
export const METRICS_SINK_METHODS: readonly (keyof MetricsSink)[] = Object.keys(NO_METRICS) as (keyof MetricsSink)[];

/** The metrics of one registry, as the metrics module serves them (adapters/metrics implements it). */
export interface MetricsExposition {
  /** Content type of `render()`'s text, e.g. Prometheus's `text/plain; version=0.0.4; charset=utf-8`. */
  readonly contentType: string;
  /** Where the services report; counted in this exposition. */
  readonly sink: MetricsSink;
  /** Catch up with the store (the outbox, the gauges read when scraped) and write out every metric. */
  render(): Promise<string>;
  /** Stop reading the store. Idempotent. */
  close(): Promise<void>;
}
