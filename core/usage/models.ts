import { Schema, type Connection } from 'mongoose';
import { boundModel } from '../store/boundModel';
import type { Tally } from './usageBuckets';

/**
 * Usage counter rows. An hour row, `_id = <org_id>|<hour start, ISO>`, holds the hour's tallies
 * keyed by operation (usageBuckets.ts `operationKey`); the processes' counters add to it
 * (usageCounters.ts). A month row, `_id = <org_id>|<month start, ISO>`, holds each rolled-up
 * day of the month as one packed string under `days.<DD>` (usageBuckets.ts `packTallies`); only
 * the roll-up writes it (usageRollup.ts), which also deletes hour rows past their retention.
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

/** How far the roll-up has gone: every hour before `daysUntil` is in month rows. */
export interface RollupState {
  _id: string;
  daysUntil: Date;
}

const hourSchema = new Schema<HourRow>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    start: { type: Date, required: true },
    ops: { type: Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, minimize: false },
);
hourSchema.index({ start: 1 });

const monthSchema = new Schema<MonthRow>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    start: { type: Date, required: true },
    days: { type: Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, minimize: false },
);

const rollupStateSchema = new Schema<RollupState>(
  {
    _id: { type: String, required: true },
    daysUntil: { type: Date, required: true },
  },
  { versionKey: false },
);
export const ROLLUP_STATE_ID = 'usage';

/** The area's models on the root's connection. */
export function usageModels(connection: Connection) {
  return {
    hours: boundModel<HourRow>(connection, 'UsageHour', hourSchema, 'usage_hours'),
    months: boundModel<MonthRow>(connection, 'UsageMonth', monthSchema, 'usage_months'),
    rollupState: boundModel<RollupState>(connection, 'UsageRollupState', rollupStateSchema, 'usage_rollup_state'),
  };
}
