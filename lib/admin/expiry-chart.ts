/**
 * The dashboard's expiry chart (docs/guides/admin-interface.md): how many certificates end in each period
 * from now on, as a server-rendered SVG bar chart — presentation attributes and the stylesheet's
 * classes only, no `style` attribute and no script (the interface's Content-Security-Policy forbids
 * both) — and the same figures as a table for screen readers and for copying.
 */
import { DAY_MS } from '../x509/datetime';
import { isoDay } from './certificate-view';
import { html, type Html } from './html';
import { dataTable } from './table';

const WIDTH = 720;
const HEIGHT = 220;
const MARGIN = { top: 24, right: 8, bottom: 32, left: 8 };
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = HEIGHT - MARGIN.top - MARGIN.bottom;
/** Share of a bar's slot the bar fills (the rest is the gap between bars). */
const BAR_SHARE = 0.7;

export interface ExpiryPeriod {
  /** First instant of the period. */
  from: Date;
  /** First instant after it. */
  to: Date;
  count: number;
}

/** The periods of `counts`, each `bucketDays` long, the first starting at `from`. */
export function expiryPeriods(from: Date, bucketDays: number, counts: readonly number[]): ExpiryPeriod[] {
  const at = (i: number) => new Date(from.getTime() + i * bucketDays * DAY_MS);
  return counts.map((count, i) => ({ from: at(i), to: at(i + 1), count }));
}

const certificates = (n: number): string => `${n} certificate${n === 1 ? '' : 's'}`;
const periodText = (p: ExpiryPeriod): string => `${isoDay(p.from)} to ${isoDay(p.to)}`;

/** The chart, then the table in a `<details>`; `unit` names a period ("week"). */
export function expiryChart(periods: readonly ExpiryPeriod[], unit: string): Html {
  const total = periods.reduce((sum, p) => sum + p.count, 0);
  const highest = Math.max(1, ...periods.map((p) => p.count));
  const slot = PLOT_WIDTH / Math.max(periods.length, 1);
  const baseline = MARGIN.top + PLOT_HEIGHT;
  const unitHeading = `${unit[0].toUpperCase()}${unit.slice(1)}`;
  const label = `Bar chart: valid certificates by the ${unit} they expire in, over the next ${periods.length} ${unit}s: ${certificates(total)} in all. The table below lists the figures.`;
  const bars = periods.map((p, i) => {
    const height = Math.round((p.count / highest) * PLOT_HEIGHT);
    const x = MARGIN.left + i * slot;
    const centre = (x + slot / 2).toFixed(1);
    return html`<g>
      <title>${unitHeading} ${i + 1} (${periodText(p)}): ${certificates(p.count)}</title>
      <rect
        class="bar"
        x="${(x + (slot * (1 - BAR_SHARE)) / 2).toFixed(1)}"
        y="${baseline - height}"
        width="${(slot * BAR_SHARE).toFixed(1)}"
        height="${height}"
      />
      <text class="count" x="${centre}" y="${baseline - height - 6}" text-anchor="middle">${p.count}</text>
      <text class="tick" x="${centre}" y="${baseline + 20}" text-anchor="middle">${isoDay(p.from).slice(5)}</text>
    </g>`;
  });
  return html`<svg
      class="expiry-chart"
      role="img"
      aria-label="${label}"
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      width="${WIDTH}"
      height="${HEIGHT}"
      xmlns="http://www.w3.org/2000/svg"
    >
      <line class="axis" x1="${MARGIN.left}" y1="${baseline}" x2="${WIDTH - MARGIN.right}" y2="${baseline}" />
      ${bars}
    </svg>
    <details>
      <summary>The figures as a table</summary>
      ${dataTable(
        `Valid certificates by the ${unit} they expire in`,
        [unitHeading, 'Expiring', 'Certificates'],
        periods.map(
          (p, i) =>
            html`<td>${i + 1}</td>
              <td>${periodText(p)}</td>
              <td>${p.count}</td>`,
        ),
      )}
    </details>`;
}
