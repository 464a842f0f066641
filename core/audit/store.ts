import { AuditEvent, AuditHead } from './models';

/**
 * The audit area's store: the one module that reads and writes `audit_events` and
 * `audit_heads`. It answers with plain records; what an entry says and how the log pages live
 * in auditLog.ts.
 */

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

/** The entry filters a read may apply besides the ids. */
export interface AuditEventMatch {
  action?: string;
  actor?: string;
}

/** The number of the organization's latest entry (0 when it has none). */
export async function auditHeadSeq(orgId: string): Promise<number> {
  const head = await AuditHead.findById(orgId, { seq: 1 }).lean<{ seq: number }>();
  return head?.seq ?? 0;
}

/** Takes the organization's next entry number (the first is 1). A first take may race another and fail on the duplicate key. */
export async function takeAuditSeq(orgId: string): Promise<number> {
  // No projection: FerretDB's findAndModify does not take one.
  const head = await AuditHead.findOneAndUpdate({ _id: orgId }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' }).lean<{ seq: number }>();
  return head!.seq;
}

/** Stores an entry; a duplicate key error when its number is taken. */
export async function insertAuditEvent(event: AuditEventRecord): Promise<void> {
  await AuditEvent.create(event);
}

/**
 * The organization's entries with these ids that match, in any order.
 * FerretDB: `_id $in` is answered from the index; sorting an organization's entries reads every one.
 */
export async function auditEventsByIds(orgId: string, ids: readonly string[], match: AuditEventMatch): Promise<AuditEventRecord[]> {
  const filter: Record<string, unknown> = { orgId };
  if (match.action) filter.action = match.action;
  if (match.actor) filter.actor = match.actor;
  return AuditEvent.find({ ...filter, _id: { $in: [...ids] } }).lean<AuditEventRecord[]>();
}

/** Deletes the entries made before `before`; answers how many. */
export async function deleteAuditEventsBefore(before: Date): Promise<number> {
  const res = await AuditEvent.deleteMany({ time: { $lt: before } });
  return res.deletedCount ?? 0;
}

/** Stores entries unordered, with no checks (benchmark seeding). */
export async function insertAuditEvents(events: AuditEventRecord[]): Promise<void> {
  await AuditEvent.collection.insertMany(events as never[], { ordered: false });
}

/** Sets the organization's latest entry number (benchmark seeding, after insertAuditEvents). */
export async function insertAuditHead(orgId: string, seq: number): Promise<void> {
  await AuditHead.collection.insertOne({ _id: orgId, seq } as never);
}
