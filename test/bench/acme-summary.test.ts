/**
 * bench/acme.ts's closing lines (docs/CONTRIBUTING.md "Development", bench:acme): the one line `npm run bench:acme`
 * ends with, in the format issue 33 fixes, and the ratios to pebble. Formatting only: no speed is
 * asserted anywhere.
 */
import { acmeSummaryLine, anchorRatioLine, pebbleRatioLine, PEBBLE_TARGETS } from '../../bench/acme-summary';

const LINE =
  /^acme: (\d+(?:\.\d)?|n\/a) orders\/s PostgreSQL, (\d+(?:\.\d)?|n\/a) orders\/s PGlite, pebble (\d+(?:\.\d)?|n\/a) orders\/s, p50 (\d+|n\/a) ms, p95 (\d+|n\/a) ms$/;

describe('bench:acme summary line', () => {
  it('names the three rates and the PostgreSQL run’s p50/p95, in that order', () => {
    const line = acmeSummaryLine({ postgres: 212.4, pglite: 131.6, pebble: 170.2, p50: 118.7, p95: 201.2 });
    expect(line).toBe('acme: 212 orders/s PostgreSQL, 132 orders/s PGlite, pebble 170 orders/s, p50 119 ms, p95 201 ms');
    expect(line).toMatch(LINE);
  });

  it('keeps one decimal below 10 orders/s, and says n/a for a part not measured', () => {
    const line = acmeSummaryLine({ postgres: null, pglite: 7.25, pebble: null, p50: 900.4, p95: Number.NaN });
    expect(line).toBe('acme: n/a orders/s PostgreSQL, 7.3 orders/s PGlite, pebble n/a orders/s, p50 900 ms, p95 n/a ms');
    expect(line).toMatch(LINE);
  });

  it('is one line', () => {
    expect(acmeSummaryLine({ postgres: 1, pglite: 2, pebble: 3, p50: 4, p95: 5 })).not.toMatch(/\n/);
  });
});

describe('bench:acme ratios to pebble', () => {
  it('divides each database’s rate by pebble’s and prints the targets of issue 33', () => {
    expect(PEBBLE_TARGETS).toEqual({ postgres: 1.2, pglite: 0.75 });
    expect(pebbleRatioLine({ postgres: 240, pglite: 120, pebble: 160, p50: 1, p95: 2 })).toBe(
      'ours / pebble: PostgreSQL 1.50x (target >= 1.2x), PGlite 0.75x (target >= 0.75x)',
    );
  });

  it('says n/a where pebble or a database was not measured', () => {
    expect(pebbleRatioLine({ postgres: 240, pglite: null, pebble: null, p50: 1, p95: 2 })).toBe(
      'ours / pebble: PostgreSQL n/a (target >= 1.2x), PGlite n/a (target >= 0.75x)',
    );
  });
});

describe('bench:acme ratios to an anchor (step-ca, pebble)', () => {
  it('divides our orders/s and CPU per order by the anchor’s', () => {
    expect(
      anchorRatioLine('PostgreSQL', { ordersPerSecond: 125, cpuMsPerOrder: 8 }, 'step-ca', { ordersPerSecond: 100, cpuMsPerOrder: 10 }),
    ).toBe('PostgreSQL / step-ca: 1.25x the orders/s, 0.80x the CPU per order (server + database)');
  });

  it('says n/a where the anchor was not measured or measured nothing', () => {
    expect(
      anchorRatioLine('PGlite', { ordersPerSecond: 90, cpuMsPerOrder: 7 }, 'pebble', { ordersPerSecond: null, cpuMsPerOrder: Number.NaN }),
    ).toBe('PGlite / pebble: n/a the orders/s, n/a the CPU per order (server + database)');
    expect(
      anchorRatioLine('PostgreSQL', { ordersPerSecond: 90, cpuMsPerOrder: 7 }, 'step-ca', { ordersPerSecond: 0, cpuMsPerOrder: 0 }),
    ).toBe('PostgreSQL / step-ca: n/a the orders/s, n/a the CPU per order (server + database)');
  });
});
