/**
 * Scraping the metrics endpoint as Prometheus does, and reading the answer with a real parser of the
 * text format (parse-prometheus-text-format, prom2json's shape): a sample is found by its family's
 * name and the labels it must carry.
 *
 * That parser folds all series of a histogram into one and drops their labels when a histogram has
 * labels besides `le` (yunyu/parse-prometheus-text-format issue #13), so histograms are handed to it
 * as untyped: each of their `_bucket`, `_sum` and `_count` series is then read as a family of its own,
 * labels intact, and `count()` reads `_count`. Which families are histograms is kept from the TYPE lines.
 */
import type { Express } from 'express';
import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusSample } from 'parse-prometheus-text-format';
import request from 'supertest';

export class Scrape {
  readonly families: ReadonlyMap<string, PrometheusFamily>;
  /** Names of the families declared `histogram`. */
  readonly histograms: ReadonlySet<string>;

  constructor(readonly text: string) {
    const histogramType = /^# TYPE (\S+) histogram$/gm;
    this.histograms = new Set([...text.matchAll(histogramType)].map((m) => m[1]));
    const families = parsePrometheusTextFormat(text.replace(histogramType, '# TYPE $1 untyped'));
    this.families = new Map(families.map((f) => [f.name, f]));
  }

  family(name: string): PrometheusFamily {
    const family = this.families.get(name);
    if (!family) throw new Error(`no metric ${name} in the scrape`);
    return family;
  }

  /** The samples of `name` whose labels include `labels`. */
  samples(name: string, labels: Record<string, string> = {}): PrometheusSample[] {
    return this.family(name).metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  }

  /** The sum of the values of the matching samples of a counter or gauge (0 when none matches). */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.samples(name, labels).reduce((sum, m) => sum + Number(m.value), 0);
  }

  /** The sum of the observation counts of the matching series of histogram `name` (0 when none has any). */
  count(name: string, labels: Record<string, string> = {}): number {
    if (!this.histograms.has(name)) throw new Error(`${name} is not a histogram in the scrape`);
    return this.families.has(`${name}_count`) ? this.value(`${name}_count`, labels) : 0;
  }
}

/** GET the endpoint (as from this machine, supertest's loopback connection) and parse it. */
export async function scrape(app: Express, path = '/metrics', headers: Record<string, string> = {}): Promise<Scrape> {
  const res = await request(app).get(path).set(headers);
  if (res.status !== 200) throw new Error(`scrape: ${res.status} ${res.text}`);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return new Scrape(res.text);
}
