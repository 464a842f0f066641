import { bucketLabel, creditsChart, rangeEndingAt, requestsChart, usageTotals } from '../../api/console/charts/usageCharts';
import { ledgerFormOf } from '../../api/console/pages/usagePage';
import type { UsagePoint } from '../../core/usage/usageSeries';

const NOW = Date.parse('2026-11-25T18:30:00Z');
const point = (start: string, operation: string, credits: number, requests: Partial<UsagePoint['requests']> = {}): UsagePoint => ({
  start,
  operation,
  credits,
  requests: { success: 0, client_error: 0, rate_limited: 0, server_error: 0, ...requests },
});

describe('the console usage charts', () => {
  test('a range is the last N whole buckets, the current one included', () => {
    expect(rangeEndingAt('day', 30, NOW)).toEqual({ granularity: 'day', fromMs: Date.parse('2026-10-27T00:00:00Z'), toMs: Date.parse('2026-11-26T00:00:00Z') });
    expect(rangeEndingAt('hour', 24, NOW)).toEqual({
      granularity: 'hour',
      fromMs: Date.parse('2026-11-24T19:00:00Z'),
      toMs: Date.parse('2026-11-25T19:00:00Z'),
    });
    expect(bucketLabel('day', Date.parse('2026-11-25T00:00:00Z'))).toBe('11-25');
    expect(bucketLabel('hour', Date.parse('2026-11-25T07:00:00Z'))).toBe('07:00');
  });

  test('credits stack by operation over every bucket, empty ones as 0, biggest spender first; points outside the range are left out', () => {
    const range = rangeEndingAt('day', 3, NOW);
    const chart = creditsChart(
      [
        point('2026-11-23T00:00:00Z', 'profiles.unlock', 2),
        point('2026-11-25T00:00:00Z', 'profiles.unlock', 1),
        point('2026-11-25T00:00:00Z', 'contact_retrieval_jobs.create', 9),
        point('2026-11-24T00:00:00Z', 'candidates.search', 0, { success: 4 }),
        point('2026-11-01T00:00:00Z', 'profiles.unlock', 100),
      ],
      range,
    );
    expect(chart.categories).toEqual(['11-23', '11-24', '11-25']);
    expect(chart.categoryName).toBe('Day (UTC)');
    expect(chart.series).toMatchObject([
      { name: 'contact_retrieval_jobs.create', values: [0, 0, 9] },
      { name: 'profiles.unlock', values: [2, 0, 1] },
    ]);
  });

  test('requests stack by outcome class, summed over operations', () => {
    const range = rangeEndingAt('hour', 2, NOW);
    const chart = requestsChart(
      [
        point('2026-11-25T17:00:00Z', 'profiles.unlock', 0, { success: 3, rate_limited: 1 }),
        point('2026-11-25T18:00:00Z', 'profiles.unlock', 0, { client_error: 2 }),
        point('2026-11-25T18:00:00Z', 'candidates.search', 0, { success: 5, server_error: 1 }),
      ],
      range,
    );
    expect(chart.categories).toEqual(['17:00', '18:00']);
    expect(chart.series).toMatchObject([
      { name: '2xx', values: [3, 5] },
      { name: '4xx (not 429)', values: [0, 2] },
      { name: '429', values: [1, 0] },
      { name: '5xx', values: [0, 1] },
    ]);
    expect(usageTotals([point('2026-11-25T17:00:00Z', 'x', 2, { success: 1, rate_limited: 2 })])).toEqual({
      credits: 2,
      requests: 3,
      rateLimited: 2,
    });
    expect(usageTotals([point('2026-11-24T00:00:00Z', 'x', 5), point('2026-11-25T00:00:00Z', 'x', 7)], Date.parse('2026-11-25T00:00:00Z')).credits).toBe(7);
  });
});

describe('the ledger filter of the Usage page', () => {
  test('keeps what the form could send; "To" covers its whole day', () => {
    expect(ledgerFormOf({ operation: 'profiles.unlock', key: 'kf_abc', from: '2026-11-01', to: '2026-11-02' })).toEqual({
      form: { operation: 'profiles.unlock', key: 'kf_abc', from: '2026-11-01', to: '2026-11-02' },
      filter: { operation: 'profiles.unlock', familyId: 'kf_abc', from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-11-03T00:00:00Z') },
    });
  });

  test('drops an unknown operation, a malformed key and dates that are not dates', () => {
    expect(ledgerFormOf({ operation: 'drop.tables', key: 'kf abc<', from: 'yesterday', to: '2026-13-45' })).toEqual({
      form: { operation: '', key: '', from: '', to: '' },
      filter: {},
    });
  });
});
