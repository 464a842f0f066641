import { ROLLUP_STATE_ID, UsageHour, UsageMonth, UsageRollupState } from './models';
import type { Tally } from './usageBuckets';

/**
 * The usage area's store: the one module that reads and writes `usage_hours`, `usage_months`
 * and `usage_rollup_state`. It answers with plain records; counting, folding and reading
 * series live with the callers.
 */

/** An organization's hour of tallies, keyed by operation (usageBuckets.ts `operationKey`); `_id = <org_id>|<hour start>`. */
export interface HourRow {
  _id: string;
  orgId: string;
  start: Date;
  ops: Record<string, Partial<Tally>>;
}

/** An organization's month of rolled-up days; `_id = <org_id>|<month start>`. */
export interface MonthRow {
  _id: string;
  orgId: string;
  start: Date;
  /** Day of the month (`01`–`31`) → packed tallies (usageBuckets.ts `packTallies`). */
  days: Record<string, string>;
}

// ---- hour rows ----------------------------------------------------------------------------

/** Adds `increments` (`ops.<key>.<field>` → n) to an hour row, creating it if new. */
export async function addToHourRow(id: string, orgId: string, start: Date, increments: Record<string, number>): Promise<void> {
  const update = { $inc: increments, $setOnInsert: { orgId, start } };
  try {
    await UsageHour.collection.updateOne({ _id: id as never }, update, { upsert: true });
  } catch (err) {
    // Two processes inserting the same new row: one wins, the other's upsert is now an update.
    if ((err as { code?: number }).code !== 11000) throw err;
    await UsageHour.collection.updateOne({ _id: id as never }, update, { upsert: true });
  }
}

/** The hour rows with these ids (absent ones have none). */
export async function hourRowsByIds(ids: readonly string[]): Promise<HourRow[]> {
  return UsageHour.find({ _id: { $in: [...ids] } }).lean<HourRow[]>();
}

/** The organization's hour rows that start in [from, to). */
export async function hourRowsOfOrgBetween(orgId: string, from: Date, to: Date): Promise<HourRow[]> {
  return UsageHour.find({ orgId, start: { $gte: from, $lt: to } }).lean<HourRow[]>();
}

/** Every organization's hour rows that start in [from, to). */
export async function hourRowsBetween(from: Date, to: Date): Promise<HourRow[]> {
  return UsageHour.find({ start: { $gte: from, $lt: to } }).lean<HourRow[]>();
}

/** Deletes the hour rows that start before `before`; answers how many. */
export async function deleteHourRowsBefore(before: Date): Promise<number> {
  return (await UsageHour.deleteMany({ start: { $lt: before } })).deletedCount;
}

// ---- month rows ---------------------------------------------------------------------------

/** The month rows with these ids (absent ones have none). */
export async function monthRowsByIds(ids: readonly string[]): Promise<MonthRow[]> {
  return UsageMonth.find({ _id: { $in: [...ids] } }).lean<MonthRow[]>();
}

/** Sets one day (`01`–`31`) of a month row to `packed`, creating the row if new. */
export async function setMonthDay(id: string, orgId: string, start: Date, dayField: string, packed: string): Promise<void> {
  await UsageMonth.collection.updateOne({ _id: id as never }, { $set: { [`days.${dayField}`]: packed }, $setOnInsert: { orgId, start } }, { upsert: true });
}

// ---- the roll-up mark ---------------------------------------------------------------------

/** Every hour before this is in month rows; null before the first roll-up. */
export async function rolledUpUntil(): Promise<Date | null> {
  return (await UsageRollupState.findById(ROLLUP_STATE_ID).lean<{ daysUntil: Date }>())?.daysUntil ?? null;
}

export async function setRolledUpUntil(daysUntil: Date): Promise<void> {
  await UsageRollupState.updateOne({ _id: ROLLUP_STATE_ID }, { $set: { daysUntil } }, { upsert: true });
}

// ---- benchmark seeding --------------------------------------------------------------------

/** Stores rows unordered, with no checks (benchmark seeding). */
export async function insertUsageRows(hours: HourRow[], months: MonthRow[]): Promise<void> {
  for (let i = 0; i < hours.length; i += 1000) await UsageHour.collection.insertMany(hours.slice(i, i + 1000) as never[], { ordered: false });
  if (months.length) await UsageMonth.collection.insertMany(months as never[], { ordered: false });
}
