import { barChart, chartSummary } from '../../api/console/charts/barChart';
import { OUTCOME_COLOURS, operationColour } from '../../api/console/charts/chartColours';
import { creditsChart, requestsChart, rangeEndingAt } from '../../api/console/charts/usageCharts';
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
    { name: 'profiles.unlock', colour: '#E69F00', values: [3, 0] },
    { name: 'candidates.search <b>', colour: '#0072B2', values: [1, 6] },
  ],
};

test('the picture names what it shows; the table carries every figure and each day total', () => {
  expect(chartSummary(chart)).toBe('Credits spent per day: 10 credits over 2 days, most on 2026-11-25 (6).');
  const out = barChart(chart).toString();
  expect(out).toContain('role="img"');
  expect(out).toContain('aria-label="Credits spent per day: 10 credits over 2 days, most on 2026-11-25 (6)."');
  // Three non-empty segments (a zero draws nothing), coloured by series.
  expect(out.match(/<rect\s+x=/g)).toHaveLength(3);
  expect(out).toContain('fill="#0072B2"');
  expect(out).toMatch(/<th scope="row">2026-11-24<\/th>\s*<td>3<\/td>\s*<td>1<\/td>\s*<td>4<\/td>/);
  // Names are escaped, never markup.
  expect(out).toContain('candidates.search &lt;b&gt;');
  expect(out).not.toContain('<b>');
  // No inline style: the pages' CSP allows none.
  expect(out).not.toMatch(/style=/);
});

test('an empty period says so rather than drawing an empty frame without words', () => {
  const empty = { ...chart, series: [{ name: 'x', colour: '#000000', values: [0, 0] }] };
  expect(chartSummary(empty)).toBe('Credits spent per day: none in this period.');
  expect(barChart(empty).toString()).toContain('No usage in this range yet.');
  expect(barChart(chart).toString()).not.toContain('No usage in this range yet.');
});

test('one colour per operation and one per outcome on every chart, the two sets apart', () => {
  const range = rangeEndingAt('day', 2, Date.parse('2026-11-28T12:00:00Z'));
  const point = (operation: string, credits: number) => ({
    start: '2026-11-28T00:00:00.000Z',
    operation,
    credits,
    requests: { success: 1, client_error: 1, rate_limited: 1, server_error: 1 },
  });
  // The same operation has the same colour whatever else the chart stacks, and in whatever order.
  const one = creditsChart([point('profiles.unlock', 5)], range).series;
  const two = creditsChart([point('candidates.search', 9), point('profiles.unlock', 5)], range).series;
  expect(one.find((s) => s.name === 'profiles.unlock')?.colour).toBe(two.find((s) => s.name === 'profiles.unlock')?.colour);
  expect(two.map((s) => s.colour)).toEqual([operationColour('candidates.search'), operationColour('profiles.unlock')]);
  const outcomes = requestsChart([point('whoami', 0)], range).series.map((s) => s.colour);
  expect(outcomes).toEqual(Object.values(OUTCOME_COLOURS));
  const operations = [
    'candidates.search',
    'profiles.unlock',
    'person_matches.create',
    'contact_retrieval_jobs.create',
    'contact_retrieval_jobs.batch_create',
    'whoami',
  ];
  for (const op of operations) expect(outcomes).not.toContain(operationColour(op));
});
