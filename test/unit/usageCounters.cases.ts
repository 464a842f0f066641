import { outcomeClass } from '../../core/usage/outcomeClass';
import type { HourRow } from '../../core/usage/store';
import {
  bucketEndCeil,
  bucketStart,
  counterRowId,
  DAY_MS,
  MINUTE_MS,
  monthStarts,
  operationKey,
  operationOfKey,
  packTallies,
  unpackTallies,
} from '../../core/usage/usageBuckets';
import { UsageCounters } from '../../core/usage/usageCounters';
import { dayField, foldHours, hoursDeletableBefore, HOUR_RETENTION_MS, ROLLUP_LAG_MS, rollupMarks } from '../../core/usage/usageRollup';
import { readPlan, seriesOf, type CountedSpan } from '../../core/usage/usageSeries';
import mongoose from 'mongoose';
import { createStores } from '../../core/deps';
import { testLogger } from '../support/capturedLogs';

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

  test('months are UTC calendar months', () => {
    expect(monthStarts(at('2026-08-27T00:00:00Z'), at('2026-11-26T00:00:00Z')).map((m) => new Date(m).toISOString())).toEqual([
      '2026-08-01T00:00:00.000Z',
      '2026-09-01T00:00:00.000Z',
      '2026-10-01T00:00:00.000Z',
      '2026-11-01T00:00:00.000Z',
    ]);
    expect(dayField(at('2026-11-05T00:00:00Z'))).toBe('05');
  });

  test("a day's tallies pack into one string and come back", () => {
    const ops = {
      'candidates:search': { success: 412, client_error: 3, rate_limited: 7, server_error: 0, credits: 412 },
      'profiles:unlock': { success: 1, credits: 5 },
    };
    expect(packTallies(ops)).toBe('candidates.search 412 3 7 0 412;profiles.unlock 1 0 0 0 5');
    expect(unpackTallies(packTallies(ops))).toEqual({
      'candidates.search': { success: 412, client_error: 3, rate_limited: 7, server_error: 0, credits: 412 },
      'profiles.unlock': { success: 1, client_error: 0, rate_limited: 0, server_error: 0, credits: 5 },
    });
    expect(unpackTallies('')).toEqual({});
  });

  test('a row id names the organization and the bucket; operation keys hold no dot and come back', () => {
    expect(counterRowId('org_a', at('2026-11-25T17:00:00Z'))).toBe('org_a|2026-11-25T17:00:00.000Z');
    expect(operationKey('contact_retrieval_jobs.create')).toBe('contact_retrieval_jobs:create');
    expect(operationOfKey(operationKey('contact_retrieval_jobs.create'))).toBe('contact_retrieval_jobs.create');
  });
});

/** Stores on a connection never opened: these tests only count, nothing is written. */
const unwritten = createStores(mongoose.createConnection());

describe('the counters of a process', () => {
  test('add requests by outcome and credits per organization, operation and minute', () => {
    let now = at('2026-11-25T10:00:10Z');
    const counters = new UsageCounters(unwritten, { logger: testLogger(), now: () => now });
    counters.countRequest('org_a', 'candidates.search', 200, 1);
    counters.countRequest('org_a', 'candidates.search', 402, 0);
    counters.countRequest('org_a', 'candidates.search', 429, 0);
    counters.countRequest('org_a', 'profiles.unlock', 500, 0);
    counters.countRequest('org_b', 'candidates.search', 200, 1);
    now = at('2026-11-25T10:01:05Z');
    counters.countRequest('org_a', 'candidates.search', 200, 1);
    counters.countCredits('org_a', 'contact_retrieval_jobs.create', 7);
    counters.countCredits('org_a', 'contact_retrieval_jobs.create', 0);

    const rows = counters.pendingMinutes().map((r) => ({ ...r, start: r.start.toISOString() }));
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
    const a = new UsageCounters(unwritten, { logger: testLogger() });
    const b = new UsageCounters(unwritten, { logger: testLogger() });
    a.countRequest('org_a', 'whoami', 200, 0);
    expect(a.pendingMinutes()).toHaveLength(1);
    expect(b.pendingMinutes()).toHaveLength(0);
  });
});

const row = (orgId: string, iso: string, ops: HourRow['ops']): HourRow => ({ _id: counterRowId(orgId, at(iso)), orgId, start: new Date(iso), ops });

describe('the roll-up', () => {
  test('folds hour rows into days per organization, adding each operation', () => {
    const folded = foldHours([
      row('org_a', '2026-11-24T00:00:00Z', { 'candidates:search': { success: 2, credits: 2 } }),
      row('org_a', '2026-11-24T23:00:00Z', { 'candidates:search': { success: 1, rate_limited: 3, credits: 1 }, 'profiles:unlock': { client_error: 1 } }),
      row('org_a', '2026-11-25T00:00:00Z', { 'candidates:search': { success: 5, credits: 5 } }),
      row('org_b', '2026-11-24T10:00:00Z', { 'candidates:search': { server_error: 1 } }),
    ]);
    expect(folded.map((d) => ({ orgId: d.orgId, day: new Date(d.day).toISOString(), ops: d.ops }))).toEqual([
      {
        orgId: 'org_a',
        day: '2026-11-24T00:00:00.000Z',
        ops: {
          'candidates:search': { success: 3, client_error: 0, rate_limited: 3, server_error: 0, credits: 3 },
          'profiles:unlock': { success: 0, client_error: 1, rate_limited: 0, server_error: 0, credits: 0 },
        },
      },
      {
        orgId: 'org_a',
        day: '2026-11-25T00:00:00.000Z',
        ops: { 'candidates:search': { success: 5, client_error: 0, rate_limited: 0, server_error: 0, credits: 5 } },
      },
      {
        orgId: 'org_b',
        day: '2026-11-24T00:00:00.000Z',
        ops: { 'candidates:search': { success: 0, client_error: 0, rate_limited: 0, server_error: 1, credits: 0 } },
      },
    ]);
  });

  test('folds a day once it has been over for the lag', () => {
    expect(ROLLUP_LAG_MS).toBe(15 * MINUTE_MS);
    const mark = (iso: string) => new Date(rollupMarks(at(iso)).daysUntil).toISOString();
    expect(mark('2026-11-26T00:14:59Z')).toBe('2026-11-25T00:00:00.000Z');
    expect(mark('2026-11-26T00:15:00Z')).toBe('2026-11-26T00:00:00.000Z');
  });

  test('deletes hour rows after 100 days, never before they are folded', () => {
    expect(HOUR_RETENTION_MS).toBe(100 * DAY_MS);
    const now = at('2026-11-25T10:20:00Z');
    expect(new Date(hoursDeletableBefore(rollupMarks(now), now)).toISOString()).toBe('2026-08-17T10:00:00.000Z');
    // The roll-up has not run for months: nothing past its mark is deleted.
    const stale = { daysUntil: now - 200 * DAY_MS };
    expect(hoursDeletableBefore(stale, now)).toBe(stale.daysUntil);
  });
});

describe('a usage read', () => {
  const marks = rollupMarks(at('2026-11-25T10:20:30Z')); // days until 2026-11-25
  const plan = (granularity: 'hour' | 'day', from: string, to: string, m = marks) =>
    readPlan(granularity, at(from), at(to), m).map((s) => `${s.rows} ${new Date(s.fromMs).toISOString()} ${new Date(s.toMs).toISOString()}`);

  test('takes each span from the rows that hold it whole, each instant once', () => {
    expect(plan('day', '2026-08-27T00:00:00Z', '2026-11-26T00:00:00Z')).toEqual([
      'month 2026-08-27T00:00:00.000Z 2026-11-25T00:00:00.000Z',
      'hour 2026-11-25T00:00:00.000Z 2026-11-26T00:00:00.000Z',
    ]);
    expect(plan('hour', '2026-11-24T10:00:00Z', '2026-11-25T11:00:00Z')).toEqual(['hour 2026-11-24T10:00:00.000Z 2026-11-25T11:00:00.000Z']);
    // A range that ends before the mark reads month rows only.
    expect(plan('day', '2026-10-01T00:00:00Z', '2026-10-03T00:00:00Z')).toEqual(['month 2026-10-01T00:00:00.000Z 2026-10-03T00:00:00.000Z']);
    // Before any roll-up everything is in hour rows.
    expect(plan('day', '2026-11-24T00:00:00Z', '2026-11-26T00:00:00Z', { daysUntil: 0 })).toEqual(['hour 2026-11-24T00:00:00.000Z 2026-11-26T00:00:00.000Z']);
  });

  test('adds counts into buckets per operation, oldest first, one operation when asked', () => {
    const spans: CountedSpan[] = [
      { start: at('2026-11-24T00:00:00Z'), ops: unpackTallies('profiles.unlock 1 0 0 0 5') },
      { start: at('2026-11-25T00:00:00Z'), ops: { 'candidates:search': { success: 2, credits: 2 } } },
      { start: at('2026-11-25T10:00:00Z'), ops: { 'candidates:search': { rate_limited: 1 }, 'profiles:unlock': { client_error: 1 } } },
      { start: at('2026-11-24T23:00:00Z'), ops: { 'candidates:search': { success: 1, credits: 1 } } },
    ];
    expect(seriesOf(spans, 'day')).toEqual([
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
    expect(seriesOf(spans, 'hour', 'profiles.unlock').map((p) => [p.start, p.credits])).toEqual([
      ['2026-11-24T00:00:00.000Z', 5],
      ['2026-11-25T10:00:00.000Z', 0],
    ]);
  });
});
