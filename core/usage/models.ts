import { Schema, model } from 'mongoose';
import type { BucketSize, Tally } from './usageBuckets';

/**
 * Usage counter rows, one collection per bucket size: `_id = <org_id>|<bucket start, ISO>`,
 * `ops` = tallies keyed by operation (usageBuckets.ts `operationKey`). Minute rows are written
 * by the processes' counters (usageCounters.ts); hour and day rows only by the roll-up
 * (usageRollup.ts), which also deletes minute and hour rows past their retention.
 */
export interface CounterRow {
  _id: string;
  orgId: string;
  start: Date;
  ops: Record<string, Partial<Tally>>;
}

function counterModel(size: BucketSize) {
  const schema = new Schema(
    {
      _id: { type: String, required: true },
      orgId: { type: String, required: true },
      start: { type: Date, required: true },
      ops: { type: Schema.Types.Mixed, default: {} },
    },
    { versionKey: false, minimize: false },
  );
  schema.index({ start: 1 });
  const name = `Usage${size[0].toUpperCase()}${size.slice(1)}`;
  return model(name, schema, `usage_${size}s`);
}

export const UsageMinute = counterModel('minute');
export const UsageHour = counterModel('hour');
export const UsageDay = counterModel('day');

export const COUNTER_MODELS = { minute: UsageMinute, hour: UsageHour, day: UsageDay } as const;

/**
 * How far the roll-up has gone: every minute before `hoursUntil` is in hour rows, every hour
 * before `daysUntil` in day rows. Readers take each span from the rows that hold it whole.
 */
export interface RollupState {
  _id: string;
  hoursUntil: Date;
  daysUntil: Date;
}

const rollupStateSchema = new Schema(
  {
    _id: { type: String, required: true },
    hoursUntil: { type: Date, required: true },
    daysUntil: { type: Date, required: true },
  },
  { versionKey: false },
);
export const UsageRollupState = model('UsageRollupState', rollupStateSchema, 'usage_rollup_state');
export const ROLLUP_STATE_ID = 'usage';
