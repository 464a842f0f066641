import { isDuplicateKeyError } from '../store/connection';
import { insertManyIgnoringDuplicates, insertOnce } from '../store/inserts';
import { typedCollection } from '../store/typedCollection';
import type { JobStatus } from './jobTypes';
import {
  ContactFieldClaim,
  ContactJobDailyCap,
  ContactJobDaySlot,
  ContactJobSlot,
  ContactRetrievalChunkPayment,
  ContactRetrievalChunkPlan,
  ContactRetrievalJob,
  ContactRetrievalJobItem,
  ContactRetrievalJobListHead,
  ContactRetrievalJobPeople,
  ContactRetrievalJobProgress,
  RetrievedContact,
  type ChunkPaymentDoc,
  type ChunkPlanDoc,
  type ContactFieldClaimDoc,
  type JobDaySlotDoc,
  type JobDoc,
  type JobItemDoc,
  type JobListHeadDoc,
  type JobPeopleDoc,
  type JobProgressDoc,
  type JobSlotDoc,
  type RetrievedContactDoc,
} from './models';

/**
 * The jobs area's store: the one module that reads and writes its collections (jobs, their
 * people, chunk plans and payments, progress, items, retrieved contacts, running-job and daily
 * slots, daily caps, contact field claims). It answers with plain records; the rules (caps,
 * charging, settling, retention) live with the callers.
 */

export type {
  ChunkPaymentDoc,
  ChunkPlanDoc,
  ContactFieldClaimDoc,
  JobDaySlotDoc,
  JobDoc,
  JobItemDoc,
  JobListHeadDoc,
  JobPeopleDoc,
  JobProgressDoc,
  JobSlotDoc,
  RetrievedContactDoc,
} from './models';

// ---- jobs and their numbers ---------------------------------------------------------------

/**
 * Each workspace numbers its jobs 1, 2, … in acceptance order, and a job carries
 * `<workspace_id>:<seq>` as `listKey`, so a page of the list, newest first, is one read of the
 * keys just below the head (`listKey: {$in}`).
 * FerretDB 1.x cannot push a sort or a range down: "newest first" by `createdAt` read and
 * sorted every job of the workspace (0.5–2 s at 2,000 jobs); string `$in` and equality are
 * pushed down (docs/local-store.md), so a window of keys with a status is answered in SQLite.
 */
export const jobListKey = (workspaceId: string, seq: number) => `${workspaceId}:${seq}`;

/** The most keys one list read names: FerretDB pushes down an `$in` of at most 1,000 strings. */
export const JOB_LIST_WINDOW = 1000;

const NUMBER_ATTEMPTS = 5;

/** The top of a workspace's jobs list: its latest number (0 when none) and whether unnumbered jobs lie below. */
export async function jobListHead(workspaceId: string): Promise<JobListHeadDoc> {
  const head = await ContactRetrievalJobListHead.findById(workspaceId).lean<JobListHeadDoc>();
  return head ?? { _id: workspaceId, seq: 0, legacy: false };
}

/** One job by id, limited to an organization's workspace when given; null when absent. */
export async function findJob(where: { _id: string; orgId?: string; workspaceId?: string }): Promise<JobDoc | null> {
  return ContactRetrievalJob.findOne(where).lean<JobDoc>();
}

/** Removes a job that was never accepted (its acceptance failed after it was recorded). */
export async function deleteJob(jobId: string): Promise<void> {
  await ContactRetrievalJob.deleteOne({ _id: jobId });
}

/** Takes `count` numbers of the workspace's jobs; answers the first. */
async function takeJobNumbers(workspaceId: string, count: number): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      const known = await ContactRetrievalJobListHead.exists({ _id: workspaceId });
      // Jobs accepted before the workspace numbered any: the list reads them after the numbered ones.
      const legacy = known ? false : (await ContactRetrievalJob.exists({ workspaceId })) !== null;
      // No projection: FerretDB's findAndModify does not take one.
      const head = await ContactRetrievalJobListHead.findOneAndUpdate(
        { _id: workspaceId },
        { $inc: { seq: count }, ...(known ? {} : { $setOnInsert: { legacy } }) },
        { upsert: true, returnDocument: 'after' },
      ).lean<JobListHeadDoc>();
      return head!.seq - count + 1;
    } catch (err) {
      // Two first jobs of a workspace may both upsert its head; the loser takes the next number.
      if (!isDuplicateKeyError(err) || attempt >= NUMBER_ATTEMPTS) throw err;
    }
  }
}

/** A job as accepted: what the store does not default. */
export type NewJob = Pick<JobDoc, '_id' | 'orgId' | 'workspaceId' | 'applicationId' | 'familyId' | 'keyId' | 'status' | 'fields' | 'requested' | 'workflowId'> &
  Partial<Omit<JobDoc, 'seq' | 'listKey' | 'createdAt' | 'updatedAt'>>;

/** Records an accepted job under the workspace's next number; answers it as stored. */
export async function insertJob(job: NewJob): Promise<JobDoc> {
  const seq = await takeJobNumbers(job.workspaceId, 1);
  const created = await ContactRetrievalJob.create({ ...job, seq, listKey: jobListKey(job.workspaceId, seq) });
  return created.toObject() as JobDoc;
}

/**
 * Records jobs of one workspace at once, numbered in the order given (a benchmark's or a
 * drill's set-up); `createdAt`/`updatedAt` are kept as given.
 */
export async function insertJobs(workspaceId: string, jobs: Array<Omit<JobDoc, 'seq' | 'listKey'>>): Promise<void> {
  if (!jobs.length) return;
  const first = await takeJobNumbers(workspaceId, jobs.length);
  const docs = jobs.map((j, i) => ({ ...j, seq: first + i, listKey: jobListKey(workspaceId, first + i) }));
  await typedCollection<JobDoc>(ContactRetrievalJob).insertMany(docs, { ordered: false });
}

/** The workspace's jobs numbered `from` down to `to` (inclusive; at most JOB_LIST_WINDOW), of `status` if given, highest number first. */
export async function numberedJobs(scope: { orgId: string; workspaceId: string }, from: number, to: number, status?: JobStatus): Promise<JobDoc[]> {
  const keys: string[] = [];
  for (let seq = from; seq >= to; seq--) keys.push(jobListKey(scope.workspaceId, seq));
  // The keys and the status only: with the organization or workspace in the filter too, SQLite
  // chose their indexes (every job of the organization) over the keys'. The key names the workspace.
  const filter: Record<string, unknown> = { listKey: { $in: keys } };
  if (status) filter.status = status;
  const docs = await ContactRetrievalJob.find(filter).lean<JobDoc[]>();
  return docs.filter((d) => d.orgId === scope.orgId && d.workspaceId === scope.workspaceId).sort((a, b) => (b.seq ?? 0) - (a.seq ?? 0));
}

/**
 * Up to `limit` of the workspace's jobs, newest first by acceptance time, after the position
 * `after`; only jobs without a number when `unnumbered`, and of `status` if given.
 * FerretDB sorts these in memory: the list reads this way only the jobs accepted before numbering.
 */
export async function jobsByTime(
  scope: { orgId: string; workspaceId: string },
  q: { status?: JobStatus; unnumbered?: boolean; after?: { t: Date; id: string }; limit: number },
): Promise<JobDoc[]> {
  const filter: Record<string, unknown> = { workspaceId: scope.workspaceId, orgId: scope.orgId };
  if (q.status) filter.status = q.status;
  if (q.unnumbered) filter.seq = { $exists: false };
  if (q.after) filter.$or = [{ createdAt: { $lt: q.after.t } }, { createdAt: q.after.t, _id: { $lt: q.after.id } }];
  return ContactRetrievalJob.find(filter).sort({ createdAt: -1, _id: -1 }).limit(q.limit).lean<JobDoc[]>();
}

/** Jobs by id (those that exist), in no order. */
export async function jobsByIds(jobIds: readonly string[]): Promise<JobDoc[]> {
  if (!jobIds.length) return [];
  return ContactRetrievalJob.find({ _id: { $in: [...jobIds] } }).lean<JobDoc[]>();
}

/** Every job of the organizations (the chaos drill's check of a few small organizations). */
export async function jobsOfOrganizations(orgIds: readonly string[]): Promise<JobDoc[]> {
  return ContactRetrievalJob.find({ orgId: { $in: [...orgIds] } }).lean<JobDoc[]>();
}

/** How many jobs are running, of the organizations if given, else of all (the chaos drill). */
export async function countRunningJobs(orgIds?: readonly string[]): Promise<number> {
  return ContactRetrievalJob.countDocuments({ ...(orgIds ? { orgId: { $in: [...orgIds] } } : {}), status: 'running' });
}

/** Records a running job's end (once: false when it was no longer running); answers the job as stored then. */
export async function recordJobFinished(
  jobId: string,
  end: Pick<JobDoc, 'status' | 'counts' | 'stopReason' | 'completedAt' | 'resultExpiresAt' | 'resultPurgeAt'>,
): Promise<JobDoc | null> {
  return ContactRetrievalJob.findOneAndUpdate({ _id: jobId, status: 'running' }, { $set: end }, { returnDocument: 'after' }).lean<JobDoc>();
}

// ---- the job outbox (what is still to be carried out in Temporal) -------------------------

const leaseFree = (now: Date) => ({ $or: [{ outboxLeaseUntil: null }, { outboxLeaseUntil: { $lte: now } }] });

/** Takes the job's outbox until `until` if something is due and nobody holds it; true when taken. */
export async function leaseJobOutbox(jobId: string, until: Date, now: Date): Promise<boolean> {
  const r = await ContactRetrievalJob.updateOne({ _id: jobId, outboxDue: true, ...leaseFree(now) }, { $set: { outboxLeaseUntil: until } });
  return r.modifiedCount === 1;
}

export async function freeJobOutbox(jobId: string): Promise<void> {
  await ContactRetrievalJob.updateOne({ _id: jobId }, { $set: { outboxLeaseUntil: null } });
}

/** Up to `limit` jobs with something due in Temporal and no holder, oldest first. */
export async function jobIdsWithOutboxDue(limit: number, now: Date): Promise<string[]> {
  const docs = await ContactRetrievalJob.find({ outboxDue: true, ...leaseFree(now) }, { _id: 1 })
    .sort({ createdAt: 1 })
    .limit(limit)
    .lean<Array<Pick<JobDoc, '_id'>>>();
  return docs.map((d) => d._id);
}

/** Records a cancel of a running job (the first request's time is kept); false when the job is not running. */
export async function recordCancelRequest(jobId: string, now: Date): Promise<boolean> {
  await ContactRetrievalJob.updateOne({ _id: jobId, status: 'running', cancelRequestedAt: null }, { $set: { cancelRequestedAt: now } });
  const r = await ContactRetrievalJob.updateOne({ _id: jobId, status: 'running' }, { $set: { cancelPending: true, outboxDue: true } });
  return r.matchedCount === 1;
}

export async function recordWorkflowStarted(jobId: string, at: Date): Promise<void> {
  await ContactRetrievalJob.updateOne({ _id: jobId }, { $set: { workflowStartedAt: at } });
}

/** The cancel asked for at `requestedAt` reached the workflow (a later one stays pending). */
export async function recordCancelDelivered(jobId: string, requestedAt: Date | null | undefined): Promise<void> {
  await ContactRetrievalJob.updateOne({ _id: jobId, cancelRequestedAt: requestedAt }, { $set: { cancelPending: false } });
}

/** Clears the outbox of a job that owes Temporal nothing more: finished, or started with no cancel pending. */
export async function closeJobOutboxIfDone(jobId: string): Promise<void> {
  await ContactRetrievalJob.updateOne(
    { _id: jobId, $or: [{ status: { $ne: 'running' } }, { workflowStartedAt: { $ne: null }, cancelPending: false }] },
    { $set: { outboxDue: false, outboxLeaseUntil: null } },
  );
}

// ---- result retention ---------------------------------------------------------------------

export async function recordResultExpired(jobId: string, now: Date): Promise<void> {
  await ContactRetrievalJob.updateOne({ _id: jobId, resultExpiredAt: null }, { $set: { resultExpiredAt: now } });
}

export async function recordResultPurged(jobId: string, now: Date): Promise<void> {
  await ContactRetrievalJob.updateOne({ _id: jobId, resultPurgedAt: null }, { $set: { resultPurgedAt: now } });
}

// ---- a running job's people and working documents -----------------------------------------

export async function insertJobPeople(doc: JobPeopleDoc): Promise<void> {
  await typedCollection<JobPeopleDoc>(ContactRetrievalJobPeople).insertOne(doc);
}

export async function findJobPeople(jobId: string): Promise<JobPeopleDoc | null> {
  return ContactRetrievalJobPeople.findById(jobId).lean<JobPeopleDoc>();
}

export async function deleteJobPeople(jobId: string): Promise<void> {
  await ContactRetrievalJobPeople.deleteOne({ _id: jobId });
}

/** Stores a chunk's plan unless one is stored under its id; true when this call stored it. */
export async function insertChunkPlan(plan: ChunkPlanDoc): Promise<boolean> {
  return insertOnce(typedCollection<ChunkPlanDoc>(ContactRetrievalChunkPlan), plan);
}

export async function findChunkPlan(planId: string): Promise<ChunkPlanDoc | null> {
  return ContactRetrievalChunkPlan.findById(planId).lean<ChunkPlanDoc>();
}

export async function chunkPlansOfJob(jobId: string): Promise<ChunkPlanDoc[]> {
  return ContactRetrievalChunkPlan.find({ jobId }).lean<ChunkPlanDoc[]>();
}

/** Stores a chunk's payment decision unless one is stored under its id; true when this call stored it. */
export async function insertChunkPayment(payment: ChunkPaymentDoc): Promise<boolean> {
  return insertOnce(typedCollection<ChunkPaymentDoc>(ContactRetrievalChunkPayment), payment);
}

export async function findChunkPayment(paymentId: string): Promise<ChunkPaymentDoc | null> {
  return ContactRetrievalChunkPayment.findById(paymentId).lean<ChunkPaymentDoc>();
}

/** Stores a finished chunk's outcomes (a repeat stores nothing). */
export async function insertChunkProgress(progress: JobProgressDoc): Promise<void> {
  await insertManyIgnoringDuplicates(typedCollection<JobProgressDoc>(ContactRetrievalJobProgress), [progress]);
}

export async function progressOfJob(jobId: string): Promise<JobProgressDoc[]> {
  return ContactRetrievalJobProgress.find({ jobId }).lean<JobProgressDoc[]>();
}

/** Removes what only a running job needs (plans, payments, progress, people) once it finished. */
export async function deleteJobWorkingDocuments(jobId: string): Promise<void> {
  await ContactRetrievalChunkPlan.deleteMany({ jobId });
  await ContactRetrievalChunkPayment.deleteMany({ jobId });
  await ContactRetrievalJobProgress.deleteMany({ jobId });
  await ContactRetrievalJobPeople.deleteOne({ _id: jobId });
}

// ---- job items (settled people) -----------------------------------------------------------

/** Stores settled people in one bulk insert; those already stored are kept as they are. */
export async function insertJobItems(items: JobItemDoc[]): Promise<void> {
  await insertManyIgnoringDuplicates(typedCollection<JobItemDoc>(ContactRetrievalJobItem), items);
}

/** The position and outcome of every settled person of a job. */
export async function jobItemOutcomes(jobId: string): Promise<Array<Pick<JobItemDoc, 'seq' | 'outcome'>>> {
  return ContactRetrievalJobItem.find({ jobId }, { seq: 1, outcome: 1 }).lean<Array<Pick<JobItemDoc, 'seq' | 'outcome'>>>();
}

/** Up to `limit` settled people of a job after position `afterSeq`, in position order. */
export async function jobItemsAfter(jobId: string, afterSeq: number, limit: number): Promise<JobItemDoc[]> {
  return ContactRetrievalJobItem.find({ jobId, seq: { $gt: afterSeq } })
    .sort({ seq: 1 })
    .limit(limit)
    .lean<JobItemDoc[]>();
}

/** The outcomes of the items named `<job_id>:<seq>` that exist. */
export async function itemOutcomesByIds(itemIds: readonly string[]): Promise<Map<string, JobItemDoc['outcome']>> {
  if (!itemIds.length) return new Map();
  const docs = await ContactRetrievalJobItem.find({ _id: { $in: [...itemIds] } }, { outcome: 1 }).lean<Array<Pick<JobItemDoc, '_id' | 'outcome'>>>();
  return new Map(docs.map((d) => [String(d._id), d.outcome]));
}

export async function deliveredPersonIdsOfJob(jobId: string): Promise<string[]> {
  const docs = await ContactRetrievalJobItem.find({ jobId, outcome: 'delivered' }, { personId: 1 }).lean<Array<Pick<JobItemDoc, 'personId'>>>();
  return docs.map((d) => d.personId);
}

/** Removes the contact values from a job's items (its result expired). */
export async function removeJobItemContacts(jobId: string): Promise<void> {
  await ContactRetrievalJobItem.updateMany({ jobId }, { $unset: { emails: '', phones: '' } });
}

export async function deleteJobItems(jobId: string): Promise<void> {
  await ContactRetrievalJobItem.deleteMany({ jobId });
}

/** How many delivered people of the jobs carry a receipt (the chaos drill's charge check). */
export async function countChargedDeliveries(jobIds: readonly string[]): Promise<number> {
  return ContactRetrievalJobItem.countDocuments({ jobId: { $in: [...jobIds] }, outcome: 'delivered', receiptId: { $ne: null } });
}

// ---- retrieved contacts (the reuse cache) -------------------------------------------------

export const retrievedContactId = (orgId: string, personId: string) => `${orgId}:${personId}`;

/** The organization's records of `personIds` retrieved since `since`; read by id, so the cost is the list's, not the cache's. */
export async function retrievedContactsSince(orgId: string, personIds: readonly string[], since: Date): Promise<RetrievedContactDoc[]> {
  if (!personIds.length) return [];
  return RetrievedContact.find({ _id: { $in: personIds.map((p) => retrievedContactId(orgId, p)) }, retrievedAt: { $gte: since } }).lean<
    RetrievedContactDoc[]
  >();
}

/** Remembers delivered contacts: one bulk insert; an older record of a person is replaced. */
export async function rememberRetrievedContacts(docs: RetrievedContactDoc[]): Promise<void> {
  const { duplicates } = await insertManyIgnoringDuplicates(typedCollection<RetrievedContactDoc>(RetrievedContact), docs);
  // Already there: retrieved before the reuse window, or with fewer fields (rare: FerretDB updates scan).
  for (const i of duplicates) await RetrievedContact.replaceOne({ _id: docs[i]._id }, docs[i], { upsert: true });
}

/** Stores records as given, skipping those stored (a benchmark's set-up). */
export async function insertRetrievedContacts(docs: RetrievedContactDoc[]): Promise<number> {
  return (await insertManyIgnoringDuplicates(typedCollection<RetrievedContactDoc>(RetrievedContact), docs)).inserted;
}

export async function retrievedContactExists(orgId: string, personId: string): Promise<boolean> {
  return (await RetrievedContact.exists({ _id: retrievedContactId(orgId, personId) })) !== null;
}

/** Moves a record's retrieval time (a benchmark's update by id). */
export async function touchRetrievedContact(orgId: string, personId: string, at: Date): Promise<void> {
  await RetrievedContact.updateOne({ _id: retrievedContactId(orgId, personId) }, { $set: { retrievedAt: at } });
}

/** Any record of the organization (a look-up by a secondary field, for the benchmark). */
export async function anyRetrievedContactOf(orgId: string): Promise<RetrievedContactDoc | null> {
  return RetrievedContact.findOne({ orgId }).lean<RetrievedContactDoc>();
}

/** Deletes the organization's records of `personIds` retrieved at or before `before` (a later retrieval keeps its record). */
export async function deleteRetrievedContacts(orgId: string, personIds: readonly string[], before: Date): Promise<void> {
  const ids = personIds.map((p) => retrievedContactId(orgId, p));
  for (let i = 0; i < ids.length; i += 1000) {
    await RetrievedContact.deleteMany({ _id: { $in: ids.slice(i, i + 1000) }, retrievedAt: { $lte: before } });
  }
}

// ---- contact field claims -----------------------------------------------------------------

export async function claimsByIds(claimIds: readonly string[]): Promise<ContactFieldClaimDoc[]> {
  return typedCollection<ContactFieldClaimDoc>(ContactFieldClaim)
    .find({ _id: { $in: [...claimIds] } })
    .toArray();
}

/** Inserts claims; answers the indexes (in `claims`) of those another job inserted first. */
export async function insertClaims(claims: ContactFieldClaimDoc[]): Promise<number[]> {
  return (await insertManyIgnoringDuplicates(typedCollection<ContactFieldClaimDoc>(ContactFieldClaim), claims)).duplicates;
}

/** Deletes the job's claims among `claimIds` (another job's claim under one of those ids stays). */
export async function deleteClaimsOfJob(jobId: string, claimIds: readonly string[]): Promise<void> {
  if (claimIds.length === 1) await ContactFieldClaim.deleteOne({ _id: claimIds[0], jobId });
  else if (claimIds.length) await ContactFieldClaim.deleteMany({ _id: { $in: [...claimIds] }, jobId });
}

// ---- running-job slots and daily slots ----------------------------------------------------

/** Claims a running-job slot; false when another job holds it (the unique `_id` decides across replicas). */
export async function insertJobSlot(slot: JobSlotDoc): Promise<boolean> {
  return insertOnce(typedCollection<JobSlotDoc>(ContactJobSlot), slot);
}

export async function jobSlotsOf(orgId: string): Promise<JobSlotDoc[]> {
  return ContactJobSlot.find({ orgId }).sort({ slot: 1 }).lean<JobSlotDoc[]>();
}

/** Frees the slots the job holds. */
export async function deleteJobSlotsOfJob(orgId: string, jobId: string): Promise<void> {
  await ContactJobSlot.deleteMany({ orgId, jobId });
}

/** Frees one slot if `jobId` still holds it; answers how many were freed (0 or 1). */
export async function deleteJobSlot(slotId: string, jobId: string): Promise<number> {
  return (await ContactJobSlot.deleteOne({ _id: slotId, jobId })).deletedCount;
}

export async function daySlotIdsOf(orgId: string, day: string): Promise<Set<string>> {
  return new Set((await ContactJobDaySlot.find({ orgId, day }, { _id: 1 }).lean<Array<Pick<JobDaySlotDoc, '_id'>>>()).map((d) => d._id));
}

/** Claims a daily slot; false when taken. */
export async function insertDaySlot(slot: JobDaySlotDoc): Promise<boolean> {
  return insertOnce(typedCollection<JobDaySlotDoc>(ContactJobDaySlot), slot);
}

export async function deleteDaySlot(slotId: string): Promise<void> {
  await ContactJobDaySlot.deleteOne({ _id: slotId });
}

export async function deleteExpiredDaySlots(now: Date): Promise<number> {
  return (await ContactJobDaySlot.deleteMany({ expiresAt: { $lte: now } })).deletedCount ?? 0;
}

// ---- operators' daily caps ----------------------------------------------------------------

/** The organization's own daily job cap, or null when it has none. */
export async function findDailyJobCap(orgId: string): Promise<number | null> {
  return (await ContactJobDailyCap.findById(orgId).lean<{ jobsPerDay: number }>())?.jobsPerDay ?? null;
}

/** Sets the organization's own daily job cap; null removes it. */
export async function saveDailyJobCap(orgId: string, jobsPerDay: number | null): Promise<void> {
  if (jobsPerDay === null) await ContactJobDailyCap.deleteOne({ _id: orgId });
  else await ContactJobDailyCap.replaceOne({ _id: orgId }, { _id: orgId, jobsPerDay }, { upsert: true });
}
