import type { UsageStores } from './store';
import type { OutcomeClass } from './outcomeClass';
import { storedRollupMarks, type RollupMarks } from './usageRollup';
import {
  addTally,
  bucketEndCeil,
  bucketStart,
  bucketStarts,
  counterRowId,
  DAY_MS,
  emptyTally,
  HOUR_MS,
  monthStarts,
  operationOfKey,
  splitTallyName,
  unpackTallies,
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
  /** Split each bucket and operation by the connected AI application that made the calls. */
  byApplication?: boolean;
}

export interface UsagePoint {
  /** The bucket's start, ISO 8601 UTC. */
  start: string;
  operation: string;
  requests: Record<OutcomeClass, number>;
  credits: number;
  /** With `byApplication`: the grant id of the connected application, null for calls of none (API keys, M2M clients). */
  application?: string | null;
}

/** A span of time read from rows of one kind: month rows (rolled-up days) or hour rows. */
export interface ReadSpan {
  rows: 'month' | 'hour';
  fromMs: number;
  toMs: number;
}

/** Beyond this many hour rows to look up by id, a span is read by organization and time instead. */
const MAX_IDS_PER_SPAN = 2_000;

/**
 * Which rows hold [fromMs, toMs) (both on `granularity` boundaries), each instant from one kind
 * only: by the day, the rolled-up days from month rows and the rest from hour rows; by the hour,
 * hour rows.
 */
export function readPlan(granularity: Granularity, fromMs: number, toMs: number, marks: RollupMarks): ReadSpan[] {
  const spans: ReadSpan[] = [];
  let at = fromMs;
  if (granularity === 'day') {
    const end = Math.min(toMs, Math.max(at, marks.daysUntil));
    if (end > at) spans.push({ rows: 'month', fromMs: at, toMs: end });
    at = end;
  }
  if (toMs > at) spans.push({ rows: 'hour', fromMs: at, toMs });
  return spans;
}

/** A day or hour of counts, read from either kind of row. */
export interface CountedSpan {
  start: number;
  ops: Record<string, Partial<Tally>>;
}

async function readSpan(stores: UsageStores, orgId: string, span: ReadSpan, nowMs: number): Promise<CountedSpan[]> {
  if (span.rows === 'month') {
    const ids = monthStarts(span.fromMs, span.toMs).map((m) => counterRowId(orgId, m));
    const months = await stores.usage.monthRowsByIds(ids);
    const days: CountedSpan[] = [];
    for (const month of months) {
      for (const [field, packed] of Object.entries(month.days ?? {})) {
        const day = month.start.getTime() + (Number(field) - 1) * DAY_MS;
        if (day >= span.fromMs && day < span.toMs) days.push({ start: day, ops: unpackTallies(packed) });
      }
    }
    return days;
  }
  // Hours after now hold nothing yet.
  const toMs = Math.min(span.toMs, bucketStart('hour', nowMs) + HOUR_MS);
  if (toMs <= span.fromMs) return [];
  const hours =
    (toMs - span.fromMs) / HOUR_MS <= MAX_IDS_PER_SPAN
      ? await stores.usage.hourRowsByIds(bucketStarts('hour', span.fromMs, toMs).map((h) => counterRowId(orgId, h)))
      : await stores.usage.hourRowsOfOrgBetween(orgId, new Date(span.fromMs), new Date(toMs));
  return hours.map((h) => ({ start: h.start.getTime(), ops: h.ops ?? {} }));
}

/** Adds counted spans into points per (bucket of `granularity`, operation), sorted by start then operation. */
export function seriesOf(spans: readonly CountedSpan[], granularity: Granularity, operation?: string, byApplication = false): UsagePoint[] {
  const points = new Map<string, { start: number; operation: string; application: string | null; tally: Tally }>();
  for (const span of spans) {
    const start = bucketStart(granularity, span.start);
    for (const [key, tally] of Object.entries(span.ops)) {
      const named = splitTallyName(operationOfKey(key));
      const op = named.operation;
      if (operation !== undefined && op !== operation) continue;
      const application = byApplication ? named.application : null;
      const id = `${start}|${op}|${application ?? ''}`;
      let point = points.get(id);
      if (!point) {
        point = { start, operation: op, application, tally: emptyTally() };
        points.set(id, point);
      }
      addTally(point.tally, tally);
    }
  }
  const order = (x: string | null, y: string | null) => ((x ?? '') < (y ?? '') ? -1 : (x ?? '') > (y ?? '') ? 1 : 0);
  return [...points.values()]
    .sort((a, b) => a.start - b.start || order(a.operation, b.operation) || order(a.application, b.application))
    .map((p) => ({
      start: new Date(p.start).toISOString(),
      operation: p.operation,
      requests: { success: p.tally.success, client_error: p.tally.client_error, rate_limited: p.tally.rate_limited, server_error: p.tally.server_error },
      credits: p.tally.credits,
      ...(byApplication ? { application: p.application } : {}),
    }));
}

/**
 * An organization's usage per UTC bucket and operation over [from, to) widened to whole
 * buckets: requests by outcome class and credits charged, from the counter rows (never the
 * ledger or the request log). Only buckets and operations with something counted appear.
 * `GET /v1/usage` and the console's usage pages read it.
 */
export async function usageSeries(stores: UsageStores, query: UsageQuery, nowMs: number): Promise<UsagePoint[]> {
  return seriesOf(await countedUsage(stores, query, nowMs), query.granularity, query.operation, query.byApplication);
}

/**
 * The counted spans behind `usageSeries` (its `operation` and `byApplication` are left to
 * `seriesOf`): a page that shows several series of one range reads the rows once, and one that
 * reads several ranges passes the roll-up marks it read once (`marks`).
 */
export async function countedUsage(
  stores: UsageStores,
  query: Pick<UsageQuery, 'orgId' | 'from' | 'to' | 'granularity'>,
  nowMs: number,
  marks: Promise<RollupMarks> = storedRollupMarks(stores),
): Promise<CountedSpan[]> {
  const fromMs = bucketStart(query.granularity, query.from.getTime());
  const toMs = bucketEndCeil(query.granularity, query.to.getTime());
  const spans = readPlan(query.granularity, fromMs, toMs, await marks);
  return (await Promise.all(spans.map((s) => readSpan(stores, query.orgId, s, nowMs)))).flat();
}
