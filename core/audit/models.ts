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
// Newest first per organization, with the id as tie-breaker: the one order the list pages in.
auditEventSchema.index({ orgId: 1, time: -1, _id: -1 });
// The audit log's filters (by action, by actor) page in the same order without scanning the organization's other entries.
auditEventSchema.index({ orgId: 1, action: 1, time: -1, _id: -1 });
auditEventSchema.index({ orgId: 1, actor: 1, time: -1, _id: -1 });
auditEventSchema.index({ time: 1 });
export const AuditEvent = model('AuditEvent', auditEventSchema, 'audit_events');
