import { Schema, type Connection } from 'mongoose';
import { boundModel } from '../store/boundModel';

/** One entry of an organization's log, numbered `seq` (also in its id, auditLog.ts auditEventId). */
export interface AuditEventRecord {
  _id: string;
  orgId: string;
  seq: number;
  time: Date;
  actor: string;
  action: string;
  target: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  clientAddress: string | null;
}

/**
 * One change to an organization (core/audit/auditLog.ts). Entries are only ever inserted;
 * the store maintenance run deletes those older than AUDIT_RETENTION_DAYS, nothing else
 * updates or deletes one.
 */
const auditEventSchema = new Schema<AuditEventRecord>(
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

/** Each organization's latest entry number: the one counter the log's writer increments. */
export interface AuditHeadRecord {
  _id: string;
  seq: number;
}
const auditHeadSchema = new Schema<AuditHeadRecord>(
  { _id: { type: String, required: true }, seq: { type: Number, required: true, default: 0 } },
  { versionKey: false },
);

/** The area's models on the root's connection. */
export function auditModels(connection: Connection) {
  return {
    events: boundModel<AuditEventRecord>(connection, 'AuditEvent', auditEventSchema, 'audit_events'),
    heads: boundModel<AuditHeadRecord>(connection, 'AuditHead', auditHeadSchema, 'audit_heads'),
  };
}
