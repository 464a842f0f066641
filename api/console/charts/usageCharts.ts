import { BUCKET_MS, bucketStart, bucketStarts } from '../../../core/usage/usageBuckets';
import type { Granularity, UsagePoint } from '../../../core/usage/usageSeries';
import type { BarChart } from './barChart';
import { OUTCOME_COLOURS, operationColour } from './chartColours';

/**
 * The console's two usage charts, drawn from `usageSeries` points (the aggregation behind
 * GET /v1/usage): credits spent per bucket, stacked by operation, and requests per bucket,
 * stacked by outcome. Every bucket of the range is a bar, empty ones too, so the time axis is
 * even and a quiet day shows as a gap rather than disappearing.
 */
export interface ChartRange {
  granularity: Granularity;
  /** First bucket's start and the end of the last (epoch ms, on bucket boundaries). */
  fromMs: number;
  toMs: number;
}

/** The last `buckets` buckets of `granularity`, the one `nowMs` is in included. */
export function rangeEndingAt(granularity: Granularity, buckets: number, nowMs: number): ChartRange {
  const toMs = bucketStart(granularity, nowMs) + BUCKET_MS[granularity];
  return { granularity, fromMs: toMs - buckets * BUCKET_MS[granularity], toMs };
}

export function bucketLabel(granularity: Granularity, startMs: number): string {
  const iso = new Date(startMs).toISOString();
  return granularity === 'hour' ? `${iso.slice(11, 13)}:00` : iso.slice(5, 10);
}

const CATEGORY_NAME: Record<Granularity, string> = { hour: 'Hour (UTC)', day: 'Day (UTC)' };

function bucketIndex(range: ChartRange): { starts: number[]; indexOf: (p: UsagePoint) => number } {
  const starts = bucketStarts(range.granularity, range.fromMs, range.toMs);
  const at = new Map(starts.map((s, i) => [s, i]));
  return { starts, indexOf: (p) => at.get(bucketStart(range.granularity, Date.parse(p.start))) ?? -1 };
}

export function creditsChart(points: readonly UsagePoint[], range: ChartRange): BarChart {
  const { starts, indexOf } = bucketIndex(range);
  const byOperation = new Map<string, number[]>();
  for (const p of points) {
    const i = indexOf(p);
    if (i < 0 || p.credits === 0) continue;
    const values = byOperation.get(p.operation) ?? starts.map(() => 0);
    values[i] += p.credits;
    byOperation.set(p.operation, values);
  }
  const total = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const series = [...byOperation.entries()]
    .sort(([a, va], [b, vb]) => total(vb) - total(va) || a.localeCompare(b))
    .map(([name, values]) => ({ name, colour: operationColour(name), values }));
  return {
    title: `Credits spent per ${range.granularity} by operation`,
    unit: 'credits',
    categoryName: CATEGORY_NAME[range.granularity],
    categories: starts.map((s) => bucketLabel(range.granularity, s)),
    series,
  };
}

const OUTCOMES = [
  { key: 'success', name: '2xx' },
  { key: 'client_error', name: '4xx (not 429)' },
  { key: 'rate_limited', name: '429' },
  { key: 'server_error', name: '5xx' },
] as const satisfies ReadonlyArray<{ key: keyof typeof OUTCOME_COLOURS; name: string }>;

export function requestsChart(points: readonly UsagePoint[], range: ChartRange): BarChart {
  const { starts, indexOf } = bucketIndex(range);
  const series = OUTCOMES.map((o) => ({ name: o.name, colour: OUTCOME_COLOURS[o.key], values: starts.map(() => 0) }));
  for (const p of points) {
    const i = indexOf(p);
    if (i < 0) continue;
    OUTCOMES.forEach((o, k) => (series[k].values[i] += p.requests[o.key]));
  }
  return {
    title: `Requests per ${range.granularity} by outcome`,
    unit: 'requests',
    categoryName: CATEGORY_NAME[range.granularity],
    categories: starts.map((s) => bucketLabel(range.granularity, s)),
    series,
  };
}

/** Sums over a range's points: what the overview states in figures beside its charts. */
export function usageTotals(points: readonly UsagePoint[], sinceMs = -Infinity): { credits: number; requests: number; rateLimited: number } {
  const totals = { credits: 0, requests: 0, rateLimited: 0 };
  for (const p of points) {
    if (Date.parse(p.start) < sinceMs) continue;
    totals.credits += p.credits;
    totals.requests += p.requests.success + p.requests.client_error + p.requests.rate_limited + p.requests.server_error;
    totals.rateLimited += p.requests.rate_limited;
  }
  return totals;
}
