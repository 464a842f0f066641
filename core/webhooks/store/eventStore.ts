import { typedCollection } from '../../store/typedCollection';
import type { WebhookModels } from '../models';
import type { EventRecord } from './records';

/** Webhook events as stored (emission: webhookEvents.ts; replays: replays.ts). */

export type NewEvent = Pick<EventRecord, '_id' | 'jobId' | 'orgId' | 'workspaceId' | 'endpointId' | 'body' | 'resultExpiresAt' | 'status'>;

const replayLeaseFree = (now: Date) => ({ $or: [{ replayLeaseUntil: null }, { replayLeaseUntil: { $lte: now } }] });

/** EventStore on the root's models (built by core/webhooks/store/webhookStore.ts). */
export function createEventStore(models: WebhookModels) {
  /** Inserts the event; a second one for its id or job fails with a duplicate-key error. */
  async function insertEvent(event: NewEvent): Promise<EventRecord> {
    const doc = await models.events.create(event);
    return doc.toObject<EventRecord>();
  }

  async function eventById(eventId: string): Promise<EventRecord | null> {
    return models.events.findById(eventId).lean<EventRecord>();
  }

  async function eventOfJob(jobId: string): Promise<EventRecord | null> {
    return models.events.findOne({ jobId }).lean<EventRecord>();
  }

  /** The event of `orgId` named by its id or by its job, or null (another organization's is null too). */
  async function eventInOrg(orgId: string, named: { eventId: string } | { jobId: string }): Promise<EventRecord | null> {
    const filter = 'eventId' in named ? { _id: named.eventId, orgId } : { jobId: named.jobId, orgId };
    return models.events.findOne(filter).lean<EventRecord>();
  }

  /** The id of the job's event in `workspaceId`, or null. */
  async function eventIdOfJobIn(workspaceId: string, jobId: string): Promise<string | null> {
    const doc = await models.events.findOne({ jobId, workspaceId }, { _id: 1 }).lean<{ _id: string }>();
    return doc?._id ?? null;
  }

  /** The replay state (status, replays so far) of each of the events that exists. */
  async function replayStatesOf(eventIds: readonly string[]): Promise<Array<Pick<EventRecord, '_id' | 'status' | 'replays'>>> {
    if (eventIds.length === 0) return [];
    return models.events.find({ _id: { $in: [...eventIds] } }, { status: 1, replays: 1 }).lean<Array<Pick<EventRecord, '_id' | 'status' | 'replays'>>>();
  }

  /** Marks the run `replay` of the event dead-lettered, unless a later replay has begun. */
  async function markEventDeadLettered(eventId: string, replay: number, at: Date): Promise<void> {
    await models.events.updateOne({ _id: eventId, replays: replay }, { $set: { status: 'dead_lettered', deadLetteredAt: at } });
  }

  /** dead_lettered after `replays` runs → replaying with one more: true for the one caller that moved it. */
  async function beginReplay(eventId: string, replays: number): Promise<boolean> {
    const moved = await models.events.updateOne({ _id: eventId, status: 'dead_lettered', replays }, { $set: { status: 'replaying' }, $inc: { replays: 1 } });
    return moved.modifiedCount === 1;
  }

  /** Records a replay accepted while Temporal did not answer, for the workflow starter to signal. */
  async function recordReplayDue(eventId: string, replay: number, run: unknown): Promise<void> {
    await models.events.updateOne(
      { _id: eventId, status: 'replaying', replays: replay },
      { $set: { replayDue: true, replayRun: run, replayLeaseUntil: null } },
    );
  }

  /** Undoes `beginReplay` of run `replay` (its signal was refused). */
  async function undoReplay(eventId: string, replay: number): Promise<void> {
    await models.events.updateOne({ _id: eventId, status: 'replaying', replays: replay }, { $set: { status: 'dead_lettered' }, $inc: { replays: -1 } });
  }

  /** Up to `limit` events with a replay still to signal and no live lease. */
  async function dueReplayEventIds(now: Date, limit: number): Promise<string[]> {
    const due = await models.events
      .find({ replayDue: true, ...replayLeaseFree(now) }, { _id: 1 })
      .limit(limit)
      .lean<Array<{ _id: string }>>();
    return due.map((d) => d._id);
  }

  /** Takes the lease on a due replay until `leaseUntil`; null when it is not due or leased by another. */
  async function leaseDueReplay(eventId: string, now: Date, leaseUntil: Date): Promise<EventRecord | null> {
    return models.events
      .findOneAndUpdate({ _id: eventId, replayDue: true, ...replayLeaseFree(now) }, { $set: { replayLeaseUntil: leaseUntil } }, { new: true })
      .lean<EventRecord>();
  }

  async function replaySignalled(eventId: string, replay: number): Promise<void> {
    await models.events.updateOne({ _id: eventId, replays: replay }, { $set: { replayDue: false, replayRun: null, replayLeaseUntil: null } });
  }

  /** The due replay's workflow is gone (its replay window closed): back to dead-lettered. */
  async function dropDueReplay(eventId: string, replay: number): Promise<void> {
    await models.events.updateOne(
      { _id: eventId, status: 'replaying', replays: replay },
      { $set: { status: 'dead_lettered', replayDue: false, replayRun: null, replayLeaseUntil: null }, $inc: { replays: -1 } },
    );
  }

  async function releaseReplayLease(eventId: string): Promise<void> {
    await models.events.updateOne({ _id: eventId }, { $set: { replayLeaseUntil: null } });
  }

  /** The latest dead-lettered events, of one organization or all (the operator's view). */
  async function deadLetteredEvents(orgId: string | undefined, limit: number): Promise<EventRecord[]> {
    return models.events
      .find({ status: 'dead_lettered', ...(orgId ? { orgId } : {}) })
      .sort({ deadLetteredAt: -1 })
      .limit(limit)
      .lean<EventRecord[]>();
  }

  /** Up to `limit` events created and last changed before the given instants (retention candidates). */
  async function eventsOlderThan(
    createdBefore: Date,
    changedBefore: Date,
    limit: number,
  ): Promise<Array<Pick<EventRecord, '_id' | 'createdAt' | 'updatedAt'>>> {
    return models.events
      .find({ createdAt: { $lte: createdBefore }, updatedAt: { $lte: changedBefore } }, { createdAt: 1, updatedAt: 1 })
      .limit(limit)
      .lean<Array<Pick<EventRecord, '_id' | 'createdAt' | 'updatedAt'>>>();
  }

  async function deleteEvents(eventIds: readonly string[]): Promise<number> {
    return (await models.events.deleteMany({ _id: { $in: [...eventIds] } })).deletedCount ?? 0;
  }

  /** Every event of the organizations (the chaos run's reconciliation). */
  async function eventsOfOrganizations(orgIds: readonly string[]): Promise<EventRecord[]> {
    return models.events.find({ orgId: { $in: [...orgIds] } }).lean<EventRecord[]>();
  }

  /** Events written as they are, in one unordered batch (a benchmark's set-up). */
  async function insertEventRecords(records: readonly EventRecord[]): Promise<void> {
    if (records.length) await typedCollection<EventRecord>(models.events).insertMany([...records], { ordered: false });
  }

  return {
    insertEvent,
    eventById,
    eventOfJob,
    eventInOrg,
    eventIdOfJobIn,
    replayStatesOf,
    markEventDeadLettered,
    beginReplay,
    recordReplayDue,
    undoReplay,
    dueReplayEventIds,
    leaseDueReplay,
    replaySignalled,
    dropDueReplay,
    releaseReplayLease,
    deadLetteredEvents,
    eventsOlderThan,
    deleteEvents,
    eventsOfOrganizations,
    insertEventRecords,
  };
}
