import { Schema, type Connection } from 'mongoose';
import { boundModel } from '../store/boundModel';
import type { LimitSettingsDoc } from './limitSettingsRecord';

/** A window slot (its second `s`) or a lease slot (organization, slot number, expiry, holder's token) in `admission_slots`. */
export interface AdmissionSlotRecord {
  _id: string;
  s?: number;
  org?: string;
  slot?: number;
  exp?: number;
  token?: string;
}

export interface CapLogRecord {
  _id: string;
  cap: string;
  i: number;
  at: number;
}

/** A committed version claim of a limit settings document (core/store/versionedDocument.ts). */
export interface LimitSettingsVersionRecord {
  _id: string;
  doc?: string;
  v?: number;
  state?: unknown;
  at?: Date;
}

/**
 * The mark every limit settings change rewrites (one document): a replica that read the same
 * token as before knows no organization's settings changed in between (limitSettingsDirectory.ts).
 */
export interface LimitSettingsMarkRecord {
  _id: string;
  token: string;
}

/**
 * Window slots and lease slots live in one collection, so that the two unique inserts a request
 * makes at once (its window slot and its lease) travel to the store as one command. A window
 * slot carries its second `s` (old windows are swept by it); a lease slot its organization, slot
 * number, expiry and holder's token. Both are looked up by `_id` only.
 */
const admissionSlotSchema = new Schema<AdmissionSlotRecord>(
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

const capLogSchema = new Schema<CapLogRecord>(
  {
    _id: { type: String, required: true },
    cap: { type: String, required: true, index: true },
    i: { type: Number, required: true },
    at: { type: Number, required: true },
  },
  { versionKey: false },
);

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

const limitSettingsSchema = new Schema<LimitSettingsDoc>(
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
const limitSettingsMarkSchema = new Schema<LimitSettingsMarkRecord>({ _id: String, token: String }, { versionKey: false });
const limitSettingsVersionSchema = new Schema<LimitSettingsVersionRecord>(
  { _id: String, doc: String, v: Number, state: Schema.Types.Mixed, at: Date },
  { versionKey: false },
);

/** The area's models on the root's connection. */
export function limitsModels(connection: Connection) {
  return {
    admissionSlots: boundModel<AdmissionSlotRecord>(connection, 'AdmissionSlot', admissionSlotSchema, 'admission_slots'),
    minuteCapLogs: boundModel<CapLogRecord>(connection, 'MinuteCapLog', capLogSchema, 'minute_cap_logs'),
    limitSettings: boundModel<LimitSettingsDoc>(connection, 'LimitSettings', limitSettingsSchema, 'limit_settings'),
    limitSettingsVersions: boundModel<LimitSettingsVersionRecord>(connection, 'LimitSettingsVersion', limitSettingsVersionSchema, 'limit_settings_versions'),
    limitSettingsMarks: boundModel<LimitSettingsMarkRecord>(connection, 'LimitSettingsMark', limitSettingsMarkSchema, 'limit_settings_marks'),
  };
}
