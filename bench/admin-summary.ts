/**
 * bench/admin.ts's figures, pure (test/bench/admin-summary.test.ts reads them): percentiles of the
 * server times it collects, and the one line `npm run bench:admin` ends with. Formatting only: no
 * speed is asserted anywhere.
 */

export interface AdminSummary {
  /** Server time of the certificate list's first page, 95th percentile (ms). */
  listP95: number;
  /** The same for a search by a subjectAltName fragment. */
  searchP95: number;
  /** Rows of the CSV export per second, as the client received them. */
  exportRowsPerSecond: number;
  /** The server process's peak RSS growth during the export (MiB). */
  exportRssGrowthMiB: number;
}

/** Nearest-rank percentile `p` (0–100) of `xs`; NaN for none. */
export function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : Number.NaN;
}

const known = (n: number) => Number.isFinite(n);
const ms = (n: number) => (!known(n) ? 'n/a' : n >= 10 ? n.toFixed(0) : n.toFixed(1));
const whole = (n: number) => (!known(n) ? 'n/a' : Math.round(n).toString());

/** `admin: list p95 <n> ms, search p95 <n> ms, export <n> rows/s, +<n> MiB` */
export function adminSummaryLine(s: AdminSummary): string {
  const mib = known(s.exportRssGrowthMiB) ? `+${whole(Math.max(0, s.exportRssGrowthMiB))}` : '+n/a';
  return `admin: list p95 ${ms(s.listP95)} ms, search p95 ${ms(s.searchP95)} ms, export ${whole(s.exportRowsPerSecond)} rows/s, ${mib} MiB`;
}
