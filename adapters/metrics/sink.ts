/**
 * The `MetricsSink` (lib/ports/metrics.ts) over prom-client: what the services report lands in the
 * metrics of definitions.ts: one increment or observation per call, nothing else — several calls
 * are on the request path. The children of labels with a fixed set of values are made once, here, so
 * that every series is scraped from the start, at 0, rather than appearing with its first event.
 */
import type { AcmeOrderOutcome, CrlBuild, IssuancePath, MetricsSink, OcspAnswer } from '../../lib/ports';
import type { CaMetrics } from './definitions';

const OCSP_ANSWERS: readonly OcspAnswer[] = ['good', 'revoked', 'unknown', 'malformed_request', 'unauthorized', 'internal_error'];
const ACME_OUTCOMES: readonly AcmeOrderOutcome[] = ['created', 'valid', 'invalid'];
const ISSUANCE_PATHS: readonly IssuancePath[] = ['in_request', 'queued'];

function children<K extends string, C>(keys: readonly K[], child: (key: K) => C): Record<K, C> {
  return Object.fromEntries(keys.map((key) => [key, child(key)])) as Record<K, C>;
}

export function promSink(m: CaMetrics): MetricsSink {
  const ocsp = children(OCSP_ANSWERS, (answer) => m.ocspResponses.labels({ answer }));
  const acme = children(ACME_OUTCOMES, (state) => m.acmeOrders.labels({ state }));
  const issuance = children(ISSUANCE_PATHS, (path) => m.issuanceSeconds.labels({ path }));
  m.loginFailures.inc(0);
  m.loginRateLimited.inc(0);
  m.databaseUnavailable.inc(0);
  for (const counter of [...Object.values(ocsp), ...Object.values(acme)]) counter.inc(0);
  return {
    issuanceCompleted: (path, seconds) => issuance[path]?.observe(seconds),
    ocspAnswered: (answer) => ocsp[answer]?.inc(),
    crlBuilt: (crl: CrlBuild) => {
      m.crlBuildSeconds.observe({ scope: crl.scope }, crl.seconds);
      m.crlBytes.set({ ca: crl.ca, scope: crl.scope }, crl.bytes);
      m.crlEntries.set({ ca: crl.ca, scope: crl.scope }, crl.entries);
    },
    loginFailed: () => m.loginFailures.inc(),
    loginRateLimited: () => m.loginRateLimited.inc(),
    acmeOrders: (outcome, count = 1) => acme[outcome]?.inc(count),
    storeUnavailable: () => m.databaseUnavailable.inc(),
    webhookDelivery: ({ endpoint, outcome, lagSeconds }) => {
      m.webhookDeliveries.inc({ endpoint: String(endpoint), outcome });
      m.webhookLag.set({ endpoint: String(endpoint) }, lagSeconds);
    },
  };
}
