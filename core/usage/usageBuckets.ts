import type { OutcomeClass } from './outcomeClass';

/**
 * Time buckets of the usage counters, all in UTC: a counter row covers one organization's
 * minute, hour or day, and holds a tally per operation. Rows are found by id (the organization
 * and the bucket's start), the one look-up FerretDB 1.x answers from an index for a list of
 * values (`_id: {$in}`), so a usage read costs one read per bucket, never a scan.
 */
export type BucketSize = 'minute' | 'hour' | 'day';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

export const BUCKET_MS: Record<BucketSize, number> = { minute: MINUTE_MS, hour: HOUR_MS, day: DAY_MS };

/** The start of the bucket holding `ms` (UTC: epoch milliseconds are UTC, days have 24 h). */
export function bucketStart(size: BucketSize, ms: number): number {
  return Math.floor(ms / BUCKET_MS[size]) * BUCKET_MS[size];
}

/** The end of the bucket holding the instant just before `ms`: `ms` itself when on a boundary. */
export function bucketEndCeil(size: BucketSize, ms: number): number {
  return Math.ceil(ms / BUCKET_MS[size]) * BUCKET_MS[size];
}

/** The id of an organization's counter row for the bucket starting at `startMs`. */
export function counterRowId(orgId: string, startMs: number): string {
  return `${orgId}|${new Date(startMs).toISOString()}`;
}

/** The starts of the buckets of `size` in [fromMs, toMs), both on boundaries of `size`. */
export function bucketStarts(size: BucketSize, fromMs: number, toMs: number): number[] {
  const starts: number[] = [];
  for (let t = fromMs; t < toMs; t += BUCKET_MS[size]) starts.push(t);
  return starts;
}

/** One operation's figures in one bucket. */
export type Tally = Record<OutcomeClass | 'credits', number>;

export function emptyTally(): Tally {
  return { success: 0, client_error: 0, rate_limited: 0, server_error: 0, credits: 0 };
}

export function addTally(into: Tally, from: Partial<Tally>): Tally {
  into.success += from.success ?? 0;
  into.client_error += from.client_error ?? 0;
  into.rate_limited += from.rate_limited ?? 0;
  into.server_error += from.server_error ?? 0;
  into.credits += from.credits ?? 0;
  return into;
}

/**
 * Field names cannot hold `.` (a path separator to the store), and every operation name has
 * one: a row keys its tallies by the name with `:` for `.` (no operation name holds a `:`).
 */
export function operationKey(operation: string): string {
  return operation.replaceAll('.', ':');
}

export function operationOfKey(key: string): string {
  return key.replaceAll(':', '.');
}
