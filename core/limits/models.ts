import { Schema, model } from 'mongoose';

/**
 * Window slots and lease slots live in one collection, so that the two unique inserts a request
 * makes at once (its window slot and its lease) travel to the store as one command. A window
 * slot carries its second `s` (old windows are swept by it); a lease slot its organization, slot
 * number, expiry and holder's token. Both are looked up by `_id` only.
 */
const admissionSlotSchema = new Schema(
  {
    _id: { type: String, required: true },
    s: { type: Number, index: true },
    org: String,
    slot: Number,
    exp: Number,
    token: String,
  },
  { versionKey: false },
);
export const AdmissionSlot = model('AdmissionSlot', admissionSlotSchema, 'admission_slots');

const capLogSchema = new Schema(
  {
    _id: { type: String, required: true },
    cap: { type: String, required: true, index: true },
    i: { type: Number, required: true },
    at: { type: Number, required: true },
  },
  { versionKey: false },
);
export const MinuteCapLog = model('MinuteCapLog', capLogSchema, 'minute_cap_logs');

const overrideSchema = new Schema(
  {
    operation: { type: String, required: true },
    scopeType: { type: String, required: true },
    scopeId: { type: String, required: true },
    kind: { type: String, enum: ['cap', 'block', 'cleared'], required: true },
    requestsPerMinute: { type: Number, default: null },
    updatedAt: { type: Date, required: true },
    setBy: { type: String, enum: ['operator', 'customer'], default: 'operator' },
  },
  { _id: false },
);

const limitSettingsSchema = new Schema(
  {
    _id: { type: String, required: true }, // org_…
    v: { type: Number, required: true, default: 0 },
    requestsPerSecond: { type: Number, default: null },
    maxConcurrency: { type: Number, default: null },
    rateCleared: { type: Boolean, default: false },
    overrides: { type: [overrideSchema], default: [] },
  },
  { versionKey: false },
);
export const LimitSettings = model('LimitSettings', limitSettingsSchema, 'limit_settings');

export const LimitSettingsVersions = model(
  'LimitSettingsVersion',
  new Schema({ _id: String, doc: String, v: Number, state: Schema.Types.Mixed, at: Date }, { versionKey: false }),
  'limit_settings_versions',
);
