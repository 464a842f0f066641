import { COUNTER_MODELS, type CounterRow } from './models';
import type { OutcomeClass } from './outcomeClass';
import { storedRollupMarks, type RollupMarks } from './usageRollup';
import {
  addTally,
  BUCKET_MS,
  bucketEndCeil,
  bucketStart,
  bucketStarts,
  counterRowId,
  emptyTally,
  MINUTE_MS,
  operationOfKey,
  type BucketSize,
  type Tally,
} from './usageBuckets';

export type Granularity = 'hour' | 'day';

export interface UsageQuery {
  orgId: string;
  from: Date;
  to: Date;
  granularity: Granularity;
  /** Only this operation's figures; every operation's when absent. */
  operation?: string;
}

export interface UsagePoint {
  /** The bucket's start, ISO 8601 UTC. */
  start: string;
  operation: string;
  requests: Record<OutcomeClass, number>;
  credits: number;
}

/** A span of time read from rows of one size. */
export interface ReadSpan {
  size: BucketSize;
  fromMs: number;
  toMs: number;
}

/** Beyond this many rows to look up by id, a span is read by organization and time instead. */
const MAX_IDS_PER_SPAN = 2_000;

/**
 * Which rows hold [fromMs, toMs) (both on `granularity` boundaries) whole, each instant from one
 * size only: day rows up to the day mark (day granularity), hour rows up to the hour mark,
 * minute rows after it, up to the minute now is in.
 */
export function readPlan(granularity: Granularity, fromMs: number, toMs: number, marks: RollupMarks, nowMs: number): ReadSpan[] {
  const spans: ReadSpan[] = [];
  let at = fromMs;
  if (granularity === 'day') {
    const end = Math.min(toMs, Math.max(at, marks.daysUntil));
    if (end > at) spans.push({ size: 'day', fromMs: at, toMs: end });
    at = Math.max(at, end);
  }
  const hoursEnd = Math.min(toMs, Math.max(at, marks.hoursUntil));
  if (hoursEnd > at) spans.push({ size: 'hour', fromMs: at, toMs: hoursEnd });
  at = Math.max(at, hoursEnd);
  const minutesEnd = Math.min(toMs, bucketStart('minute', nowMs) + MINUTE_MS);
  if (minutesEnd > at) spans.push({ size: 'minute', fromMs: at, toMs: minutesEnd });
  return spans;
}

async function readSpan(orgId: string, span: ReadSpan): Promise<CounterRow[]> {
  const model = COUNTER_MODELS[span.size];
  if ((span.toMs - span.fromMs) / BUCKET_MS[span.size] <= MAX_IDS_PER_SPAN) {
    const ids = bucketStarts(span.size, span.fromMs, span.toMs).map((s) => counterRowId(orgId, s));
    return model.find({ _id: { $in: ids } }).lean<CounterRow[]>();
  }
  return model.find({ orgId, start: { $gte: new Date(span.fromMs), $lt: new Date(span.toMs) } }).lean<CounterRow[]>();
}

/** Adds rows into points per (bucket of `granularity`, operation), sorted by start then operation. */
export function seriesOf(rows: readonly CounterRow[], granularity: Granularity, operation?: string): UsagePoint[] {
  const points = new Map<string, { start: number; operation: string; tally: Tally }>();
  for (const row of rows) {
    const start = bucketStart(granularity, row.start.getTime());
    for (const [key, tally] of Object.entries(row.ops ?? {})) {
      const op = operationOfKey(key);
      if (operation !== undefined && op !== operation) continue;
      const id = `${start}|${op}`;
      let point = points.get(id);
      if (!point) {
        point = { start, operation: op, tally: emptyTally() };
        points.set(id, point);
      }
      addTally(point.tally, tally);
    }
  }
  return [...points.values()]
    .sort((a, b) => a.start - b.start || (a.operation < b.operation ? -1 : a.operation > b.operation ? 1 : 0))
    .map((p) => ({
      start: new Date(p.start).toISOString(),
      operation: p.operation,
      requests: { success: p.tally.success, client_error: p.tally.client_error, rate_limited: p.tally.rate_limited, server_error: p.tally.server_error },
      credits: p.tally.credits,
    }));
}

/**
 * An organization's usage per UTC bucket and operation over [from, to) widened to whole
 * buckets: requests by outcome class and credits charged, from the counter rows (never the
 * ledger or the request log). Only buckets and operations with something counted appear.
 * `GET /v1/usage` and the console's usage pages read it.
 */
export async function usageSeries(query: UsageQuery, nowMs = Date.now()): Promise<UsagePoint[]> {
  const fromMs = bucketStart(query.granularity, query.from.getTime());
  const toMs = bucketEndCeil(query.granularity, query.to.getTime());
  const marks = await storedRollupMarks();
  const spans = readPlan(query.granularity, fromMs, toMs, marks, nowMs);
  const rows = (await Promise.all(spans.map((s) => readSpan(query.orgId, s)))).flat();
  return seriesOf(rows, query.granularity, query.operation);
}
