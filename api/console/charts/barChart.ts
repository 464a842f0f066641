import { html, type SafeHtml } from '../../views/safeHtml';
import { scrollingTable } from '../consoleLayout';
import { niceScale } from './niceScale';

/**
 * A stacked bar chart drawn on the server as SVG: a picture read at a glance without any
 * script, with axes and their unit, a legend, and the same figures as a table for screen
 * readers and for anyone who wants the numbers. Colours are attributes, not style, so the
 * pages' CSP (no inline style) allows them; the palette is Okabe and Ito's, told apart by
 * people with the common colour-vision deficiencies.
 */
export interface BarSeries {
  name: string;
  /** Its colour, the same wherever this operation or outcome is drawn (chartColours.ts). */
  colour: string;
  /** One value per category, in the categories' order. */
  values: readonly number[];
}

export interface BarChart {
  /** The caption and the picture's accessible name. */
  title: string;
  /** The unit of the values, shown on the vertical axis (e.g. "credits", "requests"). */
  unit: string;
  /** The horizontal axis' categories (days, hours), oldest first. */
  categories: readonly string[];
  /** What the categories are, for the table's first column (e.g. "Day (UTC)"). */
  categoryName: string;
  series: readonly BarSeries[];
}

const WIDTH = 720;
const HEIGHT = 260;
const PLOT = { left: 56, right: 12, top: 12, bottom: 44 };

function stackTotals(chart: BarChart): number[] {
  return chart.categories.map((_, i) => chart.series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
}

/** A short sentence of what the chart shows: the accessible name's detail. */
export function chartSummary(chart: BarChart): string {
  const totals = stackTotals(chart);
  const total = totals.reduce((a, b) => a + b, 0);
  if (total === 0) return `${chart.title}: none in this period.`;
  const peak = totals.indexOf(Math.max(...totals));
  return `${chart.title}: ${total} ${chart.unit} over ${chart.categories.length} ${chart.categoryName.toLowerCase().split(' ')[0]}s, most on ${chart.categories[peak]} (${totals[peak]}).`;
}

/** Every nth category label fits under its bar at the chart's width. */
function labelStep(count: number): number {
  return Math.max(1, Math.ceil(count / 12));
}

export function barChart(chart: BarChart): SafeHtml {
  const totals = stackTotals(chart);
  const scale = niceScale(Math.max(0, ...totals));
  const plotWidth = WIDTH - PLOT.left - PLOT.right;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const y = (v: number) => PLOT.top + plotHeight - (v / scale.max) * plotHeight;
  const slot = plotWidth / Math.max(1, chart.categories.length);
  const barWidth = Math.max(1, slot * 0.7);
  const step = labelStep(chart.categories.length);

  const grid = scale.ticks.map(
    (t) =>
      html`<line x1="${PLOT.left}" x2="${WIDTH - PLOT.right}" y1="${y(t)}" y2="${y(t)}" stroke="#d0d0d0" stroke-width="1" />
        <text x="${PLOT.left - 6}" y="${y(t) + 4}" text-anchor="end" font-size="11" fill="#333">${t}</text>`,
  );
  const bars = chart.categories.map((category, i) => {
    let base = 0;
    const x = PLOT.left + i * slot + (slot - barWidth) / 2;
    const parts = chart.series.map((s) => {
      const v = s.values[i] ?? 0;
      if (v <= 0) return html``;
      const top = y(base + v);
      const rect = html`<rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(y(base) - top).toFixed(1)}" fill="${s.colour}"
        ><title>${category}, ${s.name}: ${v} ${chart.unit}</title></rect
      >`;
      base += v;
      return rect;
    });
    const label =
      i % step === 0
        ? html`<text x="${(PLOT.left + i * slot + slot / 2).toFixed(1)}" y="${HEIGHT - PLOT.bottom + 16}" text-anchor="middle" font-size="11" fill="#333"
            >${category}</text
          >`
        : html``;
    return html`${parts}${label}`;
  });

  const legend = chart.series.map(
    (s) =>
      html`<li>
        <svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" fill="${s.colour}" /></svg> ${s.name}
      </li>`,
  );
  const rows = chart.categories.map(
    (category, i) =>
      html`<tr>
        <th scope="row">${category}</th>
        ${chart.series.map((s) => html`<td>${s.values[i] ?? 0}</td>`)}
        <td>${totals[i]}</td>
      </tr>`,
  );

  const empty = totals.every((t) => t === 0);
  return html`<figure class="chart">
    <figcaption>${chart.title}</figcaption>
    ${empty ? html`<p class="note">No usage in this range yet.</p>` : ''}
    <div class="plot-and-legend">
      <svg class="plot" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${chartSummary(chart)}" preserveAspectRatio="xMidYMid meet">
        ${grid}
        <line x1="${PLOT.left}" x2="${PLOT.left}" y1="${PLOT.top}" y2="${PLOT.top + plotHeight}" stroke="#333" stroke-width="1" />
        <line x1="${PLOT.left}" x2="${WIDTH - PLOT.right}" y1="${PLOT.top + plotHeight}" y2="${PLOT.top + plotHeight}" stroke="#333" stroke-width="1" />
        <text x="12" y="${PLOT.top + plotHeight / 2}" transform="rotate(-90 12 ${PLOT.top + plotHeight / 2})" text-anchor="middle" font-size="12" fill="#333">
          ${chart.unit}
        </text>
        <text x="${PLOT.left + plotWidth / 2}" y="${HEIGHT - 6}" text-anchor="middle" font-size="12" fill="#333">${chart.categoryName}</text>
        ${bars}
      </svg>
      <ul class="legend" aria-label="Legend">
        ${legend}
      </ul>
    </div>
    <details>
      <summary>${chart.title} as a table</summary>
      ${scrollingTable(`${chart.title}: the figures`, [chart.categoryName, ...chart.series.map((s) => s.name), `Total (${chart.unit})`], rows)}
    </details>
  </figure>`;
}
