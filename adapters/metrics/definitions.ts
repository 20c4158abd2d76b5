/**
 * The metrics of the metrics endpoint (docs/operations/metrics.md), in one prom-client registry of their own.
 * Every name starts with `ca_api_`; every label takes a bounded set of values — CA names, profiles,
 * key types, reasons, fixed answers — and never a certificate serial, a username or an address.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Seconds: a sign request is answered in milliseconds, a queued order within seconds (docs/DESIGN.md "Orders"). */
const ISSUANCE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds: a CRL of a few entries is built in milliseconds, one of 100,000 in seconds (bench/revocation). */
const CRL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function defineMetrics(registry: Registry) {
  const registers = [registry];
  return {
    // From the domain events (ca_api_events): every way in, every process on the database.
    certificatesIssued: new Counter({
      name: 'ca_api_certificates_issued_total',
      help: 'Certificates issued (domain event certificate.issued), by CA name, profile, key type and way in (rest, acme, cli, sql, library).',
      labelNames: ['ca', 'profile', 'key_type', 'protocol'] as const,
      registers,
    }),
    certificatesRevoked: new Counter({
      name: 'ca_api_certificates_revoked_total',
      help: 'Certificates revoked (domain event certificate.revoked), by CA name, profile, key type and reason.',
      labelNames: ['ca', 'profile', 'key_type', 'reason'] as const,
      registers,
    }),
    ordersFailed: new Counter({
      name: 'ca_api_orders_failed_total',
      help: 'Sign orders that ended failed (domain event order.failed), by CA name and profile.',
      labelNames: ['ca', 'profile'] as const,
      registers,
    }),
    events: new Counter({
      name: 'ca_api_events_total',
      help: 'Domain events read from the outbox since this process started, by type.',
      labelNames: ['type'] as const,
      registers,
    }),
    // Read from the store when scraped.
    ordersPending: new Gauge({
      name: 'ca_api_orders_pending',
      help: 'Sign orders pending now, by CA name.',
      labelNames: ['ca'] as const,
      registers,
    }),
    jobs: new Gauge({
      name: 'ca_api_jobs',
      help: 'Background jobs now, by kind (webhook_delivery, expiry_scan, acme_validation, acme_issuance, acme_expiry) and state (pending, running, done, failed).',
      labelNames: ['kind', 'state'] as const,
      registers,
    }),
    databaseUp: new Gauge({
      name: 'ca_api_database_up',
      help: '1 when the last read of the database (the outbox, when scraped or polled) succeeded, 0 when the database was unavailable.',
      registers,
    }),
    poolConnections: new Gauge({
      name: 'ca_api_database_pool_connections',
      help: "Connections of the store's pool: used, free, and callers waiting (pending).",
      labelNames: ['state'] as const,
      registers,
    }),
    // Reported by this process's services (MetricsSink).
    issuanceSeconds: new Histogram({
      name: 'ca_api_issuance_duration_seconds',
      help: 'REST sign and resign: seconds from the request (in_request) or from the order written (queued) to the certificate stored.',
      labelNames: ['path'] as const,
      buckets: ISSUANCE_BUCKETS,
      registers,
    }),
    ocspResponses: new Counter({
      name: 'ca_api_ocsp_responses_total',
      help: 'OCSP requests answered, by answer: the certificate status, or the response status that refused the request.',
      labelNames: ['answer'] as const,
      registers,
    }),
    crlBuildSeconds: new Histogram({
      name: 'ca_api_crl_build_duration_seconds',
      help: 'Seconds to build a CRL (revoked entries read, CRL Number taken, signed), by scope.',
      labelNames: ['scope'] as const,
      buckets: CRL_BUCKETS,
      registers,
    }),
    crlBytes: new Gauge({
      name: 'ca_api_crl_size_bytes',
      help: 'Size of the last CRL built, DER, by CA name and scope.',
      labelNames: ['ca', 'scope'] as const,
      registers,
    }),
    crlEntries: new Gauge({
      name: 'ca_api_crl_entries',
      help: 'Revoked certificates listed by the last CRL built, by CA name and scope.',
      labelNames: ['ca', 'scope'] as const,
      registers,
    }),
    loginFailures: new Counter({
      name: 'ca_api_login_failures_total',
      help: 'REST API Basic-auth credentials refused (unknown username or wrong password).',
      registers,
    }),
    loginRateLimited: new Counter({
      name: 'ca_api_login_rate_limited_total',
      help: 'REST API requests answered 429: the username or address is at its limit of failed logins.',
      registers,
    }),
    acmeOrders: new Counter({
      name: 'ca_api_acme_orders_total',
      help: 'ACME orders in this process: created, valid (certificate stored) and invalid (validation or issuance failed for good, or expired).',
      labelNames: ['state'] as const,
      registers,
    }),
    databaseUnavailable: new Counter({
      name: 'ca_api_database_unavailable_total',
      help: 'Requests answered 503 because the database was unavailable.',
      registers,
    }),
    // Webhook delivery from this process (docs/operations/webhooks.md); `endpoint` is the endpoint's id.
    webhookDeliveries: new Counter({
      name: 'ca_api_webhook_deliveries_total',
      help: 'Webhook delivery attempts by this process, by endpoint id and outcome (delivered, failed, dead_letter).',
      labelNames: ['endpoint', 'outcome'] as const,
      registers,
    }),
    webhookLag: new Gauge({
      name: 'ca_api_webhook_lag_seconds',
      help: 'Seconds from the commit of the event last attempted for an endpoint to the end of the attempt, by endpoint id.',
      labelNames: ['endpoint'] as const,
      registers,
    }),
  };
}

export type CaMetrics = ReturnType<typeof defineMetrics>;
