/**
 * bench/admin.ts's figures (docs/CONTRIBUTING.md "Development", bench:admin): the percentiles of its server times
 * and the one line `npm run bench:admin` ends with. Formatting only: no speed is asserted anywhere.
 */
import { adminSummaryLine, percentile } from '../../bench/admin-summary';

const LINE = /^admin: list p95 (\d+(?:\.\d)?|n\/a) ms, search p95 (\d+(?:\.\d)?|n\/a) ms, export (\d+|n\/a) rows\/s, \+(\d+|n\/a) MiB$/;

describe('bench:admin summary line', () => {
  it('names the list and search p95, the export rate and its RSS growth, in that order', () => {
    const line = adminSummaryLine({ listP95: 13.14, searchP95: 26.2, exportRowsPerSecond: 10921.4, exportRssGrowthMiB: 75.1 });
    expect(line).toBe('admin: list p95 13 ms, search p95 26 ms, export 10921 rows/s, +75 MiB');
    expect(line).toMatch(LINE);
  });

  it('keeps one decimal below 10 ms, never a negative growth, and says n/a for what was not measured', () => {
    expect(adminSummaryLine({ listP95: 4.26, searchP95: Number.NaN, exportRowsPerSecond: 2887, exportRssGrowthMiB: -0.4 })).toBe(
      'admin: list p95 4.3 ms, search p95 n/a ms, export 2887 rows/s, +0 MiB',
    );
    const unmeasured = adminSummaryLine({ listP95: 1, searchP95: 2, exportRowsPerSecond: Number.NaN, exportRssGrowthMiB: Number.NaN });
    expect(unmeasured).toBe('admin: list p95 1.0 ms, search p95 2.0 ms, export n/a rows/s, +n/a MiB');
    expect(unmeasured).toMatch(LINE);
  });
});

describe('bench:admin percentiles', () => {
  it('is the nearest rank, whatever the order of the samples', () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 95)).toBe(95);
    expect(percentile(xs, 100)).toBe(100);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});
