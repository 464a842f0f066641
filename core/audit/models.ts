import { Schema, model } from 'mongoose';

/**
 * One change to an organization (core/audit/auditLog.ts). Entries are only ever inserted;
 * the store maintenance run deletes those older than AUDIT_RETENTION_DAYS, nothing else
 * updates or deletes one.
 */
const auditEventSchema = new Schema(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    // The entry's number in its organization's log, also in its id (auditLog.ts pages by ids).
    seq: { type: Number, required: true },
    time: { type: Date, required: true },
    actor: { type: String, required: true },
    action: { type: String, required: true },
    target: { type: String, required: true },
    before: { type: Schema.Types.Mixed, default: null },
    after: { type: Schema.Types.Mixed, default: null },
    clientAddress: { type: String, default: null },
  },
  { versionKey: false, minimize: false },
);
auditEventSchema.index({ time: 1 });
export const AuditEvent = model('AuditEvent', auditEventSchema, 'audit_events');

/** Each organization's latest entry number: the one counter the log's writer increments. */
export const AuditHead = model(
  'AuditHead',
  new Schema({ _id: { type: String, required: true }, seq: { type: Number, required: true, default: 0 } }, { versionKey: false }),
  'audit_heads',
);
