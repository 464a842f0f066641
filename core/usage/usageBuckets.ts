import type { OutcomeClass } from './outcomeClass';

/**
 * Time buckets of the usage counters, all in UTC: counted per minute in a process, stored per
 * hour, rolled up per day (kept in one row per month). Rows are found by id (the organization
 * and the bucket's start), the one look-up FerretDB 1.x answers from an index for a list of
 * values (`_id: {$in}`), so a usage read costs one read per row, never a scan.
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

/** The start of the UTC month holding `ms`. */
export function monthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The starts of the UTC months overlapping [fromMs, toMs). */
export function monthStarts(fromMs: number, toMs: number): number[] {
  const starts: number[] = [];
  for (let t = monthStart(fromMs); t < toMs;) {
    starts.push(t);
    const d = new Date(t);
    t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  }
  return starts;
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

/**
 * The name a tally is kept under: the operation, and for a tool call of a person's connected AI
 * application, `@` and its grant id (`cg_…`: letters, digits and `_`), so usage can be split by
 * application. Operation names hold no `@`.
 */
export function tallyName(operation: string, application?: string): string {
  return application ? `${operation}@${application}` : operation;
}

export function splitTallyName(name: string): { operation: string; application: string | null } {
  const at = name.indexOf('@');
  return at < 0 ? { operation: name, application: null } : { operation: name.slice(0, at), application: name.slice(at + 1) };
}

const TALLY_FIELDS = ['success', 'client_error', 'rate_limited', 'server_error', 'credits'] as const;

/**
 * A day's tallies as one short string, `<operation> <success> <client_error> <rate_limited>
 * <server_error> <credits>` per operation, `;` between: the store decodes a document field by
 * field, so a day of six operations costs it one string instead of thirty numbers.
 */
export function packTallies(ops: Record<string, Partial<Tally>>): string {
  return Object.entries(ops)
    .map(([op, t]) => [operationOfKey(op), ...TALLY_FIELDS.map((f) => t[f] ?? 0)].join(' '))
    .join(';');
}

export function unpackTallies(packed: string): Record<string, Tally> {
  const ops: Record<string, Tally> = {};
  for (const part of packed ? packed.split(';') : []) {
    const [op, ...figures] = part.split(' ');
    const tally = emptyTally();
    TALLY_FIELDS.forEach((f, i) => (tally[f] = Number(figures[i] ?? 0)));
    ops[op] = tally;
  }
  return ops;
}
