import { outcomeClass } from '../../core/usage/outcomeClass';
import type { CounterRow } from '../../core/usage/models';
import { bucketEndCeil, bucketStart, counterRowId, DAY_MS, HOUR_MS, MINUTE_MS, operationKey, operationOfKey } from '../../core/usage/usageBuckets';
import { UsageCounters } from '../../core/usage/usageCounters';
import { deletableBefore, foldRows, HOUR_RETENTION_MS, MINUTE_RETENTION_MS, ROLLUP_LAG_MS, rollupMarks } from '../../core/usage/usageRollup';
import { readPlan, seriesOf } from '../../core/usage/usageSeries';

const at = (iso: string) => Date.parse(iso);

describe('outcome classes', () => {
  test.each([
    [200, 'success'],
    [202, 'success'],
    [204, 'success'],
    [400, 'client_error'],
    [402, 'client_error'],
    [403, 'client_error'],
    [404, 'client_error'],
    [422, 'client_error'],
    [429, 'rate_limited'],
    [500, 'server_error'],
    [503, 'server_error'],
    [304, null],
    [101, null],
  ])('%i is %s', (status, expected) => {
    expect(outcomeClass(status)).toBe(expected);
  });
});

describe('buckets', () => {
  test('are UTC minutes, hours and days', () => {
    const t = at('2026-11-25T17:58:43.120Z');
    expect(new Date(bucketStart('minute', t)).toISOString()).toBe('2026-11-25T17:58:00.000Z');
    expect(new Date(bucketStart('hour', t)).toISOString()).toBe('2026-11-25T17:00:00.000Z');
    expect(new Date(bucketStart('day', t)).toISOString()).toBe('2026-11-25T00:00:00.000Z');
    expect(new Date(bucketEndCeil('day', t)).toISOString()).toBe('2026-11-26T00:00:00.000Z');
    // A boundary is its own end: [from, to) does not grow by a bucket.
    expect(bucketEndCeil('hour', at('2026-11-25T17:00:00.000Z'))).toBe(at('2026-11-25T17:00:00.000Z'));
  });

  test('a row id names the organization and the bucket; operation keys hold no dot and come back', () => {
    expect(counterRowId('org_a', at('2026-11-25T17:00:00Z'))).toBe('org_a|2026-11-25T17:00:00.000Z');
    expect(operationKey('contact_retrieval_jobs.create')).toBe('contact_retrieval_jobs:create');
    expect(operationOfKey(operationKey('contact_retrieval_jobs.create'))).toBe('contact_retrieval_jobs.create');
  });
});

describe('the counters of a process', () => {
  test('add requests by outcome and credits per organization, operation and minute', () => {
    let now = at('2026-11-25T10:00:10Z');
    const counters = new UsageCounters({ now: () => now });
    counters.countRequest('org_a', 'candidates.search', 200, 1);
    counters.countRequest('org_a', 'candidates.search', 402, 0);
    counters.countRequest('org_a', 'candidates.search', 429, 0);
    counters.countRequest('org_a', 'profiles.unlock', 500, 0);
    counters.countRequest('org_b', 'candidates.search', 200, 1);
    now = at('2026-11-25T10:01:05Z');
    counters.countRequest('org_a', 'candidates.search', 200, 1);
    counters.countCredits('org_a', 'contact_retrieval_jobs.create', 7);
    counters.countCredits('org_a', 'contact_retrieval_jobs.create', 0);

    const rows = counters.pendingRows().map((r) => ({ ...r, start: r.start.toISOString() }));
    expect(rows).toEqual([
      {
        orgId: 'org_a',
        start: '2026-11-25T10:00:00.000Z',
        ops: {
          'candidates.search': { success: 1, client_error: 1, rate_limited: 1, server_error: 0, credits: 1 },
          'profiles.unlock': { success: 0, client_error: 0, rate_limited: 0, server_error: 1, credits: 0 },
        },
      },
      {
        orgId: 'org_b',
        start: '2026-11-25T10:00:00.000Z',
        ops: { 'candidates.search': { success: 1, client_error: 0, rate_limited: 0, server_error: 0, credits: 1 } },
      },
      {
        orgId: 'org_a',
        start: '2026-11-25T10:01:00.000Z',
        ops: {
          'candidates.search': { success: 1, client_error: 0, rate_limited: 0, server_error: 0, credits: 1 },
          'contact_retrieval_jobs.create': { success: 0, client_error: 0, rate_limited: 0, server_error: 0, credits: 7 },
        },
      },
    ]);
  });

  test('two counters count apart', () => {
    const a = new UsageCounters();
    const b = new UsageCounters();
    a.countRequest('org_a', 'whoami', 200, 0);
    expect(a.pendingRows()).toHaveLength(1);
    expect(b.pendingRows()).toHaveLength(0);
  });
});

const row = (orgId: string, iso: string, ops: CounterRow['ops']): CounterRow => ({ _id: counterRowId(orgId, at(iso)), orgId, start: new Date(iso), ops });

describe('the roll-up', () => {
  test('folds finer rows into coarser ones per organization and bucket, adding each operation', () => {
    const folded = foldRows(
      [
        row('org_a', '2026-11-25T10:00:00Z', { 'candidates:search': { success: 2, credits: 2 } }),
        row('org_a', '2026-11-25T10:59:00Z', { 'candidates:search': { success: 1, rate_limited: 3, credits: 1 }, 'profiles:unlock': { client_error: 1 } }),
        row('org_a', '2026-11-25T11:00:00Z', { 'candidates:search': { success: 5, credits: 5 } }),
        row('org_b', '2026-11-25T10:30:00Z', { 'candidates:search': { server_error: 1 } }),
      ],
      'hour',
    );
    expect(folded.map((r) => ({ _id: r._id, ops: r.ops }))).toEqual([
      {
        _id: 'org_a|2026-11-25T10:00:00.000Z',
        ops: {
          'candidates:search': { success: 3, client_error: 0, rate_limited: 3, server_error: 0, credits: 3 },
          'profiles:unlock': { success: 0, client_error: 1, rate_limited: 0, server_error: 0, credits: 0 },
        },
      },
      { _id: 'org_a|2026-11-25T11:00:00.000Z', ops: { 'candidates:search': { success: 5, client_error: 0, rate_limited: 0, server_error: 0, credits: 5 } } },
      { _id: 'org_b|2026-11-25T10:00:00.000Z', ops: { 'candidates:search': { success: 0, client_error: 0, rate_limited: 0, server_error: 1, credits: 0 } } },
    ]);
  });

  test('folds an hour once it has been over for the lag, and a day once all its hours are folded', () => {
    expect(ROLLUP_LAG_MS).toBe(15 * MINUTE_MS);
    const marks = (iso: string) => {
      const m = rollupMarks(at(iso));
      return { hoursUntil: new Date(m.hoursUntil).toISOString(), daysUntil: new Date(m.daysUntil).toISOString() };
    };
    expect(marks('2026-11-25T10:14:59Z')).toEqual({ hoursUntil: '2026-11-25T09:00:00.000Z', daysUntil: '2026-11-25T00:00:00.000Z' });
    expect(marks('2026-11-25T10:15:00Z')).toEqual({ hoursUntil: '2026-11-25T10:00:00.000Z', daysUntil: '2026-11-25T00:00:00.000Z' });
    expect(marks('2026-11-26T00:14:00Z')).toEqual({ hoursUntil: '2026-11-25T23:00:00.000Z', daysUntil: '2026-11-25T00:00:00.000Z' });
    expect(marks('2026-11-26T00:15:00Z')).toEqual({ hoursUntil: '2026-11-26T00:00:00.000Z', daysUntil: '2026-11-26T00:00:00.000Z' });
  });

  test('deletes minute rows after 48 hours and hour rows after 100 days, never before they are folded', () => {
    expect(MINUTE_RETENTION_MS).toBe(48 * HOUR_MS);
    expect(HOUR_RETENTION_MS).toBe(100 * DAY_MS);
    const now = at('2026-11-25T10:00:00Z');
    expect(deletableBefore(rollupMarks(now), now)).toEqual({ minute: now - 48 * HOUR_MS, hour: now - 100 * DAY_MS });
    // Nothing folded yet (the roll-up has not run for days): nothing is deleted past the marks.
    const stale = { hoursUntil: now - 72 * HOUR_MS, daysUntil: now - 200 * DAY_MS };
    expect(deletableBefore(stale, now)).toEqual({ minute: stale.hoursUntil, hour: stale.daysUntil });
  });
});

describe('a usage read', () => {
  const now = at('2026-11-25T10:20:30Z');
  const marks = rollupMarks(now); // hours until 10:00, days until 2026-11-25
  const plan = (granularity: 'hour' | 'day', from: string, to: string, m = marks) =>
    readPlan(granularity, at(from), at(to), m, now).map((s) => `${s.size} ${new Date(s.fromMs).toISOString()} ${new Date(s.toMs).toISOString()}`);

  test('takes each span from the coarsest rows that hold it whole, each instant once', () => {
    expect(plan('day', '2026-08-27T00:00:00Z', '2026-11-26T00:00:00Z')).toEqual([
      'day 2026-08-27T00:00:00.000Z 2026-11-25T00:00:00.000Z',
      'hour 2026-11-25T00:00:00.000Z 2026-11-25T10:00:00.000Z',
      'minute 2026-11-25T10:00:00.000Z 2026-11-25T10:21:00.000Z',
    ]);
    expect(plan('hour', '2026-11-24T10:00:00Z', '2026-11-25T11:00:00Z')).toEqual([
      'hour 2026-11-24T10:00:00.000Z 2026-11-25T10:00:00.000Z',
      'minute 2026-11-25T10:00:00.000Z 2026-11-25T10:21:00.000Z',
    ]);
    // A range that ends before the marks reads coarse rows only.
    expect(plan('day', '2026-10-01T00:00:00Z', '2026-10-03T00:00:00Z')).toEqual(['day 2026-10-01T00:00:00.000Z 2026-10-03T00:00:00.000Z']);
    // Before any roll-up everything is in minute rows.
    expect(plan('day', '2026-11-24T00:00:00Z', '2026-11-26T00:00:00Z', { hoursUntil: 0, daysUntil: 0 })).toEqual([
      'minute 2026-11-24T00:00:00.000Z 2026-11-25T10:21:00.000Z',
    ]);
  });

  test('adds rows into buckets per operation, oldest first, one operation when asked', () => {
    const rows = [
      row('org_a', '2026-11-24T00:00:00Z', { 'profiles:unlock': { success: 1, credits: 5 } }),
      row('org_a', '2026-11-25T00:00:00Z', { 'candidates:search': { success: 2, credits: 2 } }),
      row('org_a', '2026-11-25T10:03:00Z', { 'candidates:search': { rate_limited: 1 }, 'profiles:unlock': { client_error: 1 } }),
      row('org_a', '2026-11-24T23:00:00Z', { 'candidates:search': { success: 1, credits: 1 } }),
    ];
    expect(seriesOf(rows, 'day')).toEqual([
      {
        start: '2026-11-24T00:00:00.000Z',
        operation: 'candidates.search',
        requests: { success: 1, client_error: 0, rate_limited: 0, server_error: 0 },
        credits: 1,
      },
      {
        start: '2026-11-24T00:00:00.000Z',
        operation: 'profiles.unlock',
        requests: { success: 1, client_error: 0, rate_limited: 0, server_error: 0 },
        credits: 5,
      },
      {
        start: '2026-11-25T00:00:00.000Z',
        operation: 'candidates.search',
        requests: { success: 2, client_error: 0, rate_limited: 1, server_error: 0 },
        credits: 2,
      },
      {
        start: '2026-11-25T00:00:00.000Z',
        operation: 'profiles.unlock',
        requests: { success: 0, client_error: 1, rate_limited: 0, server_error: 0 },
        credits: 0,
      },
    ]);
    expect(seriesOf(rows, 'hour', 'profiles.unlock').map((p) => [p.start, p.credits])).toEqual([
      ['2026-11-24T00:00:00.000Z', 5],
      ['2026-11-25T10:00:00.000Z', 0],
    ]);
  });
});
