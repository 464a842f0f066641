import { typedCollection } from '../../store/typedCollection';
import { WebhookEvent } from '../models';
import type { EventRecord } from './records';

/** Webhook events as stored (emission: webhookEvents.ts; replays: replays.ts). */

export type NewEvent = Pick<EventRecord, '_id' | 'jobId' | 'orgId' | 'workspaceId' | 'endpointId' | 'body' | 'resultExpiresAt' | 'status'>;

/** Inserts the event; a second one for its id or job fails with a duplicate-key error. */
export async function insertEvent(event: NewEvent): Promise<EventRecord> {
  const doc = await WebhookEvent.create(event);
  return doc.toObject<EventRecord>();
}

export async function eventById(eventId: string): Promise<EventRecord | null> {
  return WebhookEvent.findById(eventId).lean<EventRecord>();
}

export async function eventOfJob(jobId: string): Promise<EventRecord | null> {
  return WebhookEvent.findOne({ jobId }).lean<EventRecord>();
}

/** The event of `orgId` named by its id or by its job, or null (another organization's is null too). */
export async function eventInOrg(orgId: string, named: { eventId: string } | { jobId: string }): Promise<EventRecord | null> {
  const filter = 'eventId' in named ? { _id: named.eventId, orgId } : { jobId: named.jobId, orgId };
  return WebhookEvent.findOne(filter).lean<EventRecord>();
}

/** The id of the job's event in `workspaceId`, or null. */
export async function eventIdOfJobIn(workspaceId: string, jobId: string): Promise<string | null> {
  const doc = await WebhookEvent.findOne({ jobId, workspaceId }, { _id: 1 }).lean<{ _id: string }>();
  return doc?._id ?? null;
}

/** The replay state (status, replays so far) of each of the events that exists. */
export async function replayStatesOf(eventIds: readonly string[]): Promise<Array<Pick<EventRecord, '_id' | 'status' | 'replays'>>> {
  if (eventIds.length === 0) return [];
  return WebhookEvent.find({ _id: { $in: [...eventIds] } }, { status: 1, replays: 1 }).lean<Array<Pick<EventRecord, '_id' | 'status' | 'replays'>>>();
}

/** Marks the run `replay` of the event dead-lettered, unless a later replay has begun. */
export async function markEventDeadLettered(eventId: string, replay: number, at: Date): Promise<void> {
  await WebhookEvent.updateOne({ _id: eventId, replays: replay }, { $set: { status: 'dead_lettered', deadLetteredAt: at } });
}

/** dead_lettered after `replays` runs → replaying with one more: true for the one caller that moved it. */
export async function beginReplay(eventId: string, replays: number): Promise<boolean> {
  const moved = await WebhookEvent.updateOne({ _id: eventId, status: 'dead_lettered', replays }, { $set: { status: 'replaying' }, $inc: { replays: 1 } });
  return moved.modifiedCount === 1;
}

/** Records a replay accepted while Temporal did not answer, for the workflow starter to signal. */
export async function recordReplayDue(eventId: string, replay: number, run: unknown): Promise<void> {
  await WebhookEvent.updateOne({ _id: eventId, status: 'replaying', replays: replay }, { $set: { replayDue: true, replayRun: run, replayLeaseUntil: null } });
}

/** Undoes `beginReplay` of run `replay` (its signal was refused). */
export async function undoReplay(eventId: string, replay: number): Promise<void> {
  await WebhookEvent.updateOne({ _id: eventId, status: 'replaying', replays: replay }, { $set: { status: 'dead_lettered' }, $inc: { replays: -1 } });
}

const replayLeaseFree = (now: Date) => ({ $or: [{ replayLeaseUntil: null }, { replayLeaseUntil: { $lte: now } }] });

/** Up to `limit` events with a replay still to signal and no live lease. */
export async function dueReplayEventIds(now: Date, limit: number): Promise<string[]> {
  const due = await WebhookEvent.find({ replayDue: true, ...replayLeaseFree(now) }, { _id: 1 })
    .limit(limit)
    .lean<Array<{ _id: string }>>();
  return due.map((d) => d._id);
}

/** Takes the lease on a due replay until `leaseUntil`; null when it is not due or leased by another. */
export async function leaseDueReplay(eventId: string, now: Date, leaseUntil: Date): Promise<EventRecord | null> {
  return WebhookEvent.findOneAndUpdate(
    { _id: eventId, replayDue: true, ...replayLeaseFree(now) },
    { $set: { replayLeaseUntil: leaseUntil } },
    { new: true },
  ).lean<EventRecord>();
}

export async function replaySignalled(eventId: string, replay: number): Promise<void> {
  await WebhookEvent.updateOne({ _id: eventId, replays: replay }, { $set: { replayDue: false, replayRun: null, replayLeaseUntil: null } });
}

/** The due replay's workflow is gone (its replay window closed): back to dead-lettered. */
export async function dropDueReplay(eventId: string, replay: number): Promise<void> {
  await WebhookEvent.updateOne(
    { _id: eventId, status: 'replaying', replays: replay },
    { $set: { status: 'dead_lettered', replayDue: false, replayRun: null, replayLeaseUntil: null }, $inc: { replays: -1 } },
  );
}

export async function releaseReplayLease(eventId: string): Promise<void> {
  await WebhookEvent.updateOne({ _id: eventId }, { $set: { replayLeaseUntil: null } });
}

/** The latest dead-lettered events, of one organization or all (the operator's view). */
export async function deadLetteredEvents(orgId: string | undefined, limit: number): Promise<EventRecord[]> {
  return WebhookEvent.find({ status: 'dead_lettered', ...(orgId ? { orgId } : {}) })
    .sort({ deadLetteredAt: -1 })
    .limit(limit)
    .lean<EventRecord[]>();
}

/** Up to `limit` events created and last changed before the given instants (retention candidates). */
export async function eventsOlderThan(
  createdBefore: Date,
  changedBefore: Date,
  limit: number,
): Promise<Array<Pick<EventRecord, '_id' | 'createdAt' | 'updatedAt'>>> {
  return WebhookEvent.find({ createdAt: { $lte: createdBefore }, updatedAt: { $lte: changedBefore } }, { createdAt: 1, updatedAt: 1 })
    .limit(limit)
    .lean<Array<Pick<EventRecord, '_id' | 'createdAt' | 'updatedAt'>>>();
}

export async function deleteEvents(eventIds: readonly string[]): Promise<number> {
  return (await WebhookEvent.deleteMany({ _id: { $in: [...eventIds] } })).deletedCount ?? 0;
}

/** Every event of the organizations (the chaos run's reconciliation). */
export async function eventsOfOrganizations(orgIds: readonly string[]): Promise<EventRecord[]> {
  return WebhookEvent.find({ orgId: { $in: [...orgIds] } }).lean<EventRecord[]>();
}

/** Events written as they are, in one unordered batch (a benchmark's set-up). */
export async function insertEventRecords(records: readonly EventRecord[]): Promise<void> {
  if (records.length) await typedCollection<EventRecord>(WebhookEvent).insertMany([...records], { ordered: false });
}
