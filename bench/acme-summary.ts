/**
 * bench/acme.ts's closing lines, pure (test/bench/acme-summary.test.ts reads them): the one-line
 * summary `npm run bench:acme` ends with, and the ratios to pebble with the targets of issue 33
 * (printed, never asserted: a shared machine's figures are not a pass or a fail).
 */

export interface AcmeSummary {
  /** Complete orders/s of the example server on PostgreSQL; null when not measured. */
  postgres: number | null;
  /** The same on PGlite. */
  pglite: number | null;
  /** pebble's, same client, same run. */
  pebble: number | null;
  /** ms per order (new-order until the chain is read) of the PostgreSQL run, else of PGlite's. */
  p50: number | null;
  p95: number | null;
}

/** Ours / pebble targets: the example server must beat the test server on PostgreSQL, and keep near it on PGlite. */
export const PEBBLE_TARGETS = { postgres: 1.2, pglite: 0.75 } as const;

const rate = (n: number | null) => (n === null || !Number.isFinite(n) ? 'n/a' : n >= 10 ? n.toFixed(0) : n.toFixed(1));
const ms = (n: number | null) => (n === null || !Number.isFinite(n) ? 'n/a' : n.toFixed(0));

/** `acme: <n> orders/s PostgreSQL, <n> orders/s PGlite, pebble <n> orders/s, p50 <n> ms, p95 <n> ms` */
export function acmeSummaryLine(s: AcmeSummary): string {
  return `acme: ${rate(s.postgres)} orders/s PostgreSQL, ${rate(s.pglite)} orders/s PGlite, pebble ${rate(s.pebble)} orders/s, p50 ${ms(s.p50)} ms, p95 ${ms(s.p95)} ms`;
}

/** `ours / pebble: PostgreSQL 1.31x (target >= 1.2x), PGlite 0.80x (target >= 0.75x)` */
export function pebbleRatioLine(s: AcmeSummary): string {
  const ratio = (ours: number | null, target: number) =>
    ours === null || s.pebble === null || !(s.pebble > 0)
      ? `n/a (target >= ${target}x)`
      : `${(ours / s.pebble).toFixed(2)}x (target >= ${target}x)`;
  return `ours / pebble: PostgreSQL ${ratio(s.postgres, PEBBLE_TARGETS.postgres)}, PGlite ${ratio(s.pglite, PEBBLE_TARGETS.pglite)}`;
}

/** What the ratios to an anchor compare: complete orders/s, and ms of CPU per order (server process + database). */
export interface ServerRate {
  ordersPerSecond: number | null;
  cpuMsPerOrder: number | null;
}

/** `PostgreSQL / step-ca: 1.25x the orders/s, 0.80x the CPU per order (server + database)`; n/a where either is missing. */
export function anchorRatioLine(ours: string, o: ServerRate, anchor: string, a: ServerRate): string {
  const ratio = (x: number | null, y: number | null) =>
    x === null || y === null || !Number.isFinite(x) || !Number.isFinite(y) || !(y > 0) ? 'n/a' : `${(x / y).toFixed(2)}x`;
  return `${ours} / ${anchor}: ${ratio(o.ordersPerSecond, a.ordersPerSecond)} the orders/s, ${ratio(o.cpuMsPerOrder, a.cpuMsPerOrder)} the CPU per order (server + database)`;
}
