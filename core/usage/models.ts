import { Schema, model } from 'mongoose';

/**
 * Usage counter rows. An hour row, `_id = <org_id>|<hour start, ISO>`, holds the hour's tallies
 * keyed by operation (usageBuckets.ts `operationKey`); the processes' counters add to it
 * (usageCounters.ts). A month row, `_id = <org_id>|<month start, ISO>`, holds each rolled-up
 * day of the month as one packed string under `days.<DD>` (usageBuckets.ts `packTallies`); only
 * the roll-up writes it (usageRollup.ts), which also deletes hour rows past their retention.
 */
const hourSchema = new Schema(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    start: { type: Date, required: true },
    ops: { type: Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, minimize: false },
);
hourSchema.index({ start: 1 });
export const UsageHour = model('UsageHour', hourSchema, 'usage_hours');

const monthSchema = new Schema(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    start: { type: Date, required: true },
    days: { type: Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, minimize: false },
);
export const UsageMonth = model('UsageMonth', monthSchema, 'usage_months');

/** How far the roll-up has gone: every hour before `daysUntil` is in month rows. */
const rollupStateSchema = new Schema(
  {
    _id: { type: String, required: true },
    daysUntil: { type: Date, required: true },
  },
  { versionKey: false },
);
export const UsageRollupState = model('UsageRollupState', rollupStateSchema, 'usage_rollup_state');
export const ROLLUP_STATE_ID = 'usage';
