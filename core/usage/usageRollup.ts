import type { HourRow, UsageStores } from './store';
import { addTally, bucketStart, counterRowId, DAY_MS, emptyTally, MINUTE_MS, monthStart, packTallies, type Tally } from './usageBuckets';

/**
 * The roll-up of usage counters, run by the hourly store maintenance: the hour rows of each day
 * that has ended are folded into that day's entry of its month row, so a read by the day takes
 * a month in one row (usageSeries.ts). Hour rows stay HOUR_RETENTION_MS (reads by the hour, a
 * re-run of the roll-up), then go; month rows stay.
 */
export const HOUR_RETENTION_MS = 100 * DAY_MS;
/**
 * A day is folded this long after it ends: processes write each minute once it has ended, within
 * a few seconds (USAGE_FLUSH_EVERY_MS), and on stop, so by then every hour of it is written.
 */
export const ROLLUP_LAG_MS = 15 * MINUTE_MS;

/** Every hour before it is in month rows. */
export interface RollupMarks {
  daysUntil: number;
}

/** Where a roll-up at `nowMs` brings the mark: the days ended ROLLUP_LAG_MS ago. */
export function rollupMarks(nowMs: number): RollupMarks {
  return { daysUntil: bucketStart('day', nowMs - ROLLUP_LAG_MS) };
}

export interface FoldedDay {
  orgId: string;
  /** The day's start. */
  day: number;
  ops: Record<string, Tally>;
}

/** The days that hour rows add up to, per organization. */
export function foldHours(rows: readonly HourRow[]): FoldedDay[] {
  const days = new Map<string, FoldedDay>();
  for (const row of rows) {
    const day = bucketStart('day', row.start.getTime());
    const id = counterRowId(row.orgId, day);
    let into = days.get(id);
    if (!into) {
      into = { orgId: row.orgId, day, ops: {} };
      days.set(id, into);
    }
    for (const [key, tally] of Object.entries(row.ops ?? {})) addTally((into.ops[key] ??= emptyTally()), tally);
  }
  return [...days.values()];
}

/** The field of a month row that holds `day`: its day of the month, two digits. */
export function dayField(day: number): string {
  return String(new Date(day).getUTCDate()).padStart(2, '0');
}

/** Hour rows may be deleted before this: past their retention and folded. */
export function hoursDeletableBefore(marks: RollupMarks, nowMs: number): number {
  return Math.min(marks.daysUntil, bucketStart('hour', nowMs - HOUR_RETENTION_MS));
}

/** The roll-up mark as stored; the epoch before the first roll-up (nothing folded yet). */
export async function storedRollupMarks(stores: UsageStores): Promise<RollupMarks> {
  return { daysUntil: (await stores.usage.rolledUpUntil())?.getTime() ?? 0 };
}

export interface RollupCounts {
  /** Organization-days written into month rows. */
  days: number;
  hourRowsDeleted: number;
}

/**
 * One roll-up at `now`: folds the days ended since the last one into month rows, moves the
 * mark, then deletes hour rows past retention. Safe to repeat: a day's entry is set whole from
 * its hour rows, and an hour row is deleted only once folded.
 */
export async function rollUpUsage(stores: UsageStores, now: Date): Promise<RollupCounts> {
  const nowMs = now.getTime();
  const before = await storedRollupMarks(stores);
  const marks = { daysUntil: Math.max(before.daysUntil, rollupMarks(nowMs).daysUntil) };
  let days = 0;
  if (marks.daysUntil > before.daysUntil) {
    const rows = await stores.usage.hourRowsBetween(new Date(before.daysUntil), new Date(marks.daysUntil));
    for (const folded of foldHours(rows)) {
      const month = monthStart(folded.day);
      await stores.usage.setMonthDay(counterRowId(folded.orgId, month), folded.orgId, new Date(month), dayField(folded.day), packTallies(folded.ops));
      days += 1;
    }
    await stores.usage.setRolledUpUntil(new Date(marks.daysUntil));
  }
  const hourRowsDeleted = await stores.usage.deleteHourRowsBefore(new Date(hoursDeletableBefore(marks, nowMs)));
  return { days, hourRowsDeleted };
}
