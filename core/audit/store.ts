import type { Connection } from 'mongoose';
import { typedCollection } from '../store/typedCollection';
import { auditModels, type AuditEventRecord, type AuditHeadRecord } from './models';

export type { AuditEventRecord } from './models';

/**
 * The audit area's store: the one module that reads and writes `audit_events` and
 * `audit_heads`. It answers with plain records; what an entry says and how the log pages live
 * in auditLog.ts.
 */

/** The entry filters a read may apply besides the ids. */
export interface AuditEventMatch {
  action?: string;
  actor?: string;
}

/** The audit area's store on the root's connection (core/deps.ts `createStores`). */
export function createAuditStore(connection: Connection) {
  const { events: AuditEvent, heads: AuditHead } = auditModels(connection);
  const events = typedCollection<AuditEventRecord>(AuditEvent);
  const heads = typedCollection<AuditHeadRecord>(AuditHead);
  return {
    /** The number of the organization's latest entry (0 when it has none). */
    async auditHeadSeq(orgId: string): Promise<number> {
      const head = await AuditHead.findById(orgId, { seq: 1 }).lean();
      return head?.seq ?? 0;
    },

    /** Takes the organization's next entry number (the first is 1). A first take may race another and fail on the duplicate key. */
    async takeAuditSeq(orgId: string): Promise<number> {
      // No projection: FerretDB's findAndModify does not take one.
      const head = await AuditHead.findOneAndUpdate({ _id: orgId }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' }).lean();
      return head!.seq;
    },

    /** Stores an entry; a duplicate key error when its number is taken. */
    async insertAuditEvent(event: AuditEventRecord): Promise<void> {
      await AuditEvent.create(event);
    },

    /**
     * The organization's entries with these ids that match, in any order.
     * FerretDB: `_id $in` is answered from the index; sorting an organization's entries reads every one.
     */
    async auditEventsByIds(orgId: string, ids: readonly string[], match: AuditEventMatch): Promise<AuditEventRecord[]> {
      const filter: Record<string, unknown> = { orgId };
      if (match.action) filter.action = match.action;
      if (match.actor) filter.actor = match.actor;
      return AuditEvent.find({ ...filter, _id: { $in: [...ids] } }).lean<AuditEventRecord[]>();
    },

    /** Deletes the entries made before `before`; answers how many. */
    async deleteAuditEventsBefore(before: Date): Promise<number> {
      const res = await AuditEvent.deleteMany({ time: { $lt: before } });
      return res.deletedCount ?? 0;
    },

    /** Stores entries unordered, with no checks (benchmark seeding). */
    async insertAuditEvents(rows: AuditEventRecord[]): Promise<void> {
      await events.insertMany(rows, { ordered: false });
    },

    /** Sets the organization's latest entry number (benchmark seeding, after insertAuditEvents). */
    async insertAuditHead(orgId: string, seq: number): Promise<void> {
      await heads.insertOne({ _id: orgId, seq });
    },
  };
}

export type AuditStore = ReturnType<typeof createAuditStore>;
