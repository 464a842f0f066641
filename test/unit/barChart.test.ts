import { barChart, chartSummary, PALETTE } from '../../api/console/charts/barChart';
import { niceScale, niceStep } from '../../api/console/charts/niceScale';

test('axes end on a round number at or above the largest value, marked at 1, 2 or 5 × 10^n', () => {
  expect(niceStep(7)).toBe(10);
  expect(niceStep(1.5)).toBe(2);
  expect(niceStep(0.3)).toBe(0.5);
  expect(niceScale(0)).toEqual({ max: 1, ticks: [0, 1] });
  expect(niceScale(3)).toEqual({ max: 3, ticks: [0, 1, 2, 3] });
  expect(niceScale(47)).toEqual({ max: 50, ticks: [0, 10, 20, 30, 40, 50] });
  expect(niceScale(1234)).toEqual({ max: 1500, ticks: [0, 500, 1000, 1500] });
});

const chart = {
  title: 'Credits spent per day',
  unit: 'credits',
  categoryName: 'Day (UTC)',
  categories: ['2026-11-24', '2026-11-25'],
  series: [
    { name: 'profiles.unlock', values: [3, 0] },
    { name: 'candidates.search <b>', values: [1, 6] },
  ],
};

test('the picture names what it shows; the table carries every figure and each day total', () => {
  expect(chartSummary(chart)).toBe('Credits spent per day: 10 credits over 2 days, most on 2026-11-25 (6).');
  const out = barChart(chart).html;
  expect(out).toContain('role="img"');
  expect(out).toContain('aria-label="Credits spent per day: 10 credits over 2 days, most on 2026-11-25 (6)."');
  // Three non-empty segments (a zero draws nothing), coloured by series.
  expect(out.match(/<rect\s+x=/g)).toHaveLength(3);
  expect(out).toContain(`fill="${PALETTE[1]}"`);
  expect(out).toMatch(/<th scope="row">2026-11-24<\/th>\s*<td>3<\/td>\s*<td>1<\/td>\s*<td>4<\/td>/);
  // Names are escaped, never markup.
  expect(out).toContain('candidates.search &lt;b&gt;');
  expect(out).not.toContain('<b>');
  // No inline style: the pages' CSP allows none.
  expect(out).not.toMatch(/style=/);
});

test('an empty period says so rather than drawing an empty frame without words', () => {
  expect(chartSummary({ ...chart, series: [{ name: 'x', values: [0, 0] }] })).toBe('Credits spent per day: none in this period.');
});
