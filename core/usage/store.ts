import type { Connection } from 'mongoose';
import { typedCollection } from '../store/typedCollection';
import { ROLLUP_STATE_ID, usageModels, type HourRow, type MonthRow } from './models';

export type { HourRow, MonthRow } from './models';

/**
 * The usage area's store: the one module that reads and writes `usage_hours`, `usage_months`
 * and `usage_rollup_state`. It answers with plain records; counting, folding and reading
 * series live with the callers.
 */
export function createUsageStore(connection: Connection) {
  const { hours: UsageHour, months: UsageMonth, rollupState: UsageRollupState } = usageModels(connection);
  const hours = typedCollection<HourRow>(UsageHour);
  const months = typedCollection<MonthRow>(UsageMonth);
  return {
    // ---- hour rows --------------------------------------------------------------------------

    /** Adds `increments` (`ops.<key>.<field>` → n) to an hour row, creating it if new. */
    async addToHourRow(id: string, orgId: string, start: Date, increments: Record<string, number>): Promise<void> {
      const update = { $inc: increments, $setOnInsert: { orgId, start } };
      try {
        await hours.updateOne({ _id: id }, update, { upsert: true });
      } catch (err) {
        // Two processes inserting the same new row: one wins, the other's upsert is now an update.
        if ((err as { code?: number }).code !== 11000) throw err;
        await hours.updateOne({ _id: id }, update, { upsert: true });
      }
    },

    /** The hour rows with these ids (absent ones have none). */
    async hourRowsByIds(ids: readonly string[]): Promise<HourRow[]> {
      return UsageHour.find({ _id: { $in: [...ids] } }).lean<HourRow[]>();
    },

    /** The organization's hour rows that start in [from, to). */
    async hourRowsOfOrgBetween(orgId: string, from: Date, to: Date): Promise<HourRow[]> {
      return UsageHour.find({ orgId, start: { $gte: from, $lt: to } }).lean<HourRow[]>();
    },

    /** Every organization's hour rows that start in [from, to). */
    async hourRowsBetween(from: Date, to: Date): Promise<HourRow[]> {
      return UsageHour.find({ start: { $gte: from, $lt: to } }).lean<HourRow[]>();
    },

    /** Deletes the hour rows that start before `before`; answers how many. */
    async deleteHourRowsBefore(before: Date): Promise<number> {
      return (await UsageHour.deleteMany({ start: { $lt: before } })).deletedCount;
    },

    // ---- month rows -------------------------------------------------------------------------

    /** The month rows with these ids (absent ones have none). */
    async monthRowsByIds(ids: readonly string[]): Promise<MonthRow[]> {
      return UsageMonth.find({ _id: { $in: [...ids] } }).lean<MonthRow[]>();
    },

    /** Sets one day (`01`–`31`) of a month row to `packed`, creating the row if new. */
    async setMonthDay(id: string, orgId: string, start: Date, dayField: string, packed: string): Promise<void> {
      await months.updateOne({ _id: id }, { $set: { [`days.${dayField}`]: packed }, $setOnInsert: { orgId, start } }, { upsert: true });
    },

    // ---- the roll-up mark -------------------------------------------------------------------

    /** Every hour before this is in month rows; null before the first roll-up. */
    async rolledUpUntil(): Promise<Date | null> {
      return (await UsageRollupState.findById(ROLLUP_STATE_ID).lean())?.daysUntil ?? null;
    },

    async setRolledUpUntil(daysUntil: Date): Promise<void> {
      await UsageRollupState.updateOne({ _id: ROLLUP_STATE_ID }, { $set: { daysUntil } }, { upsert: true });
    },

    // ---- benchmark seeding ------------------------------------------------------------------

    /** Stores rows unordered, with no checks (benchmark seeding). */
    async insertUsageRows(hourRows: HourRow[], monthRows: MonthRow[]): Promise<void> {
      for (let i = 0; i < hourRows.length; i += 1000) await hours.insertMany(hourRows.slice(i, i + 1000), { ordered: false });
      if (monthRows.length) await months.insertMany(monthRows, { ordered: false });
    },
  };
}

export type UsageStore = ReturnType<typeof createUsageStore>;

/** What the area's functions read and write through: the root's stores (`deps.stores`) or any object holding the usage store. */
export interface UsageStores {
  usage: UsageStore;
}
