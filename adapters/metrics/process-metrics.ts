/**
 * prom-client's default process and Node.js metrics (docs/operations/metrics.md: `processMetrics`), named as
 * Prometheus's conventions want: a name ending in `_total` is a counter's. prom-client 15 also exports
 * three gauges under such names — `nodejs_active_handles_total`, `nodejs_active_requests_total`,
 * `nodejs_active_resources_total` — which `promtool check metrics` refuses (and which a `rate()` would
 * misread). Each is only the sum of the gauge of the same name without the suffix, which is served
 * with its `type` label (`sum(nodejs_active_handles)` is the total), so they are left out.
 */
import { collectDefaultMetrics, Gauge, type Registry } from 'prom-client';

const COUNTER_SUFFIX = '_total';

/** Register prom-client's default metrics in `registry`, without gauges named like counters. */
export function registerProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const { name } of registry.getMetricsAsArray()) {
    if (name.endsWith(COUNTER_SUFFIX) && registry.getSingleMetric(name) instanceof Gauge) registry.removeSingleMetric(name);
  }
}
