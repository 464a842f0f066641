import { COUNTER_MODELS, ROLLUP_STATE_ID, UsageRollupState, type CounterRow } from './models';
import { addTally, bucketStart, counterRowId, DAY_MS, emptyTally, HOUR_MS, MINUTE_MS, type BucketSize, type Tally } from './usageBuckets';

/**
 * The roll-up of usage counters, run by the hourly store maintenance: minute rows are folded
 * into hour rows, hour rows into day rows, each as soon as its bucket is closed, so a usage
 * read takes each span from the coarsest rows that hold it whole (usageSeries.ts). Fine rows
 * stay a while after they are folded (the console's 24-hour chart, a re-run of the roll-up),
 * then go: minute rows after MINUTE_RETENTION_MS, hour rows after HOUR_RETENTION_MS; day rows stay.
 */
export const MINUTE_RETENTION_MS = 48 * HOUR_MS;
export const HOUR_RETENTION_MS = 100 * DAY_MS;
/**
 * An hour is folded this long after it ends: processes write their counts every few seconds
 * (USAGE_FLUSH_EVERY_MS) and on stop, so by then every minute of it is written.
 */
export const ROLLUP_LAG_MS = 15 * MINUTE_MS;

export interface RollupMarks {
  /** Every minute before it is in hour rows. */
  hoursUntil: number;
  /** Every hour before it is in day rows. */
  daysUntil: number;
}

/** Where a roll-up at `nowMs` brings the marks: whole hours ended ROLLUP_LAG_MS ago, whole days within them. */
export function rollupMarks(nowMs: number): RollupMarks {
  const hoursUntil = bucketStart('hour', nowMs - ROLLUP_LAG_MS);
  return { hoursUntil, daysUntil: bucketStart('day', hoursUntil) };
}

/** The rows of `size` that `rows` (finer ones) add up to, per organization and bucket. */
export function foldRows(rows: readonly CounterRow[], size: BucketSize): CounterRow[] {
  const folded = new Map<string, { orgId: string; start: number; ops: Record<string, Tally> }>();
  for (const row of rows) {
    const start = bucketStart(size, row.start.getTime());
    const id = counterRowId(row.orgId, start);
    let into = folded.get(id);
    if (!into) {
      into = { orgId: row.orgId, start, ops: {} };
      folded.set(id, into);
    }
    for (const [key, tally] of Object.entries(row.ops ?? {})) addTally((into.ops[key] ??= emptyTally()), tally);
  }
  return [...folded.entries()].map(([id, r]) => ({ _id: id, orgId: r.orgId, start: new Date(r.start), ops: r.ops }));
}

/** When rows of each size may be deleted: past their retention and folded into coarser ones. */
export function deletableBefore(marks: RollupMarks, nowMs: number): { minute: number; hour: number } {
  return { minute: Math.min(marks.hoursUntil, nowMs - MINUTE_RETENTION_MS), hour: Math.min(marks.daysUntil, nowMs - HOUR_RETENTION_MS) };
}

/** The roll-up marks as stored; the epoch before the first roll-up (nothing folded yet). */
export async function storedRollupMarks(): Promise<RollupMarks> {
  const state = await UsageRollupState.findById(ROLLUP_STATE_ID).lean<{ hoursUntil: Date; daysUntil: Date }>();
  return { hoursUntil: state?.hoursUntil.getTime() ?? 0, daysUntil: state?.daysUntil.getTime() ?? 0 };
}

/** Folds `fine` rows with a start in [fromMs, toMs) into `coarse` rows; each coarse row is written whole, so a re-run writes the same. */
async function fold(fine: BucketSize, coarse: BucketSize, fromMs: number, toMs: number): Promise<number> {
  if (toMs <= fromMs) return 0;
  const rows = await COUNTER_MODELS[fine].find({ start: { $gte: new Date(fromMs), $lt: new Date(toMs) } }).lean<CounterRow[]>();
  const folded = foldRows(rows, coarse);
  const target = COUNTER_MODELS[coarse].collection;
  for (const row of folded) await target.replaceOne({ _id: row._id as never }, row, { upsert: true });
  return folded.length;
}

export interface RollupCounts {
  hourRows: number;
  dayRows: number;
  minuteRowsDeleted: number;
  hourRowsDeleted: number;
}

/**
 * One roll-up at `now`: folds the hours and days closed since the last one, moves the marks,
 * then deletes the rows past retention. Safe to repeat: folds rewrite whole rows, and a row is
 * deleted only once folded.
 */
export async function rollUpUsage(now = new Date()): Promise<RollupCounts> {
  const nowMs = now.getTime();
  const before = await storedRollupMarks();
  const target = rollupMarks(nowMs);
  const marks = { hoursUntil: Math.max(before.hoursUntil, target.hoursUntil), daysUntil: Math.max(before.daysUntil, target.daysUntil) };
  const hourRows = await fold('minute', 'hour', before.hoursUntil, marks.hoursUntil);
  const dayRows = await fold('hour', 'day', before.daysUntil, marks.daysUntil);
  await UsageRollupState.updateOne(
    { _id: ROLLUP_STATE_ID },
    { $set: { hoursUntil: new Date(marks.hoursUntil), daysUntil: new Date(marks.daysUntil) } },
    { upsert: true },
  );
  const cut = deletableBefore(marks, nowMs);
  const [minutes, hours] = await Promise.all([
    COUNTER_MODELS.minute.deleteMany({ start: { $lt: new Date(cut.minute) } }),
    COUNTER_MODELS.hour.deleteMany({ start: { $lt: new Date(cut.hour) } }),
  ]);
  return { hourRows, dayRows, minuteRowsDeleted: minutes.deletedCount, hourRowsDeleted: hours.deletedCount };
}
