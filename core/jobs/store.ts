import { isDuplicateKeyError } from '../store/connection';
import { insertManyIgnoringDuplicates, insertOnce } from '../store/inserts';
import { typedCollection } from '../store/typedCollection';
import type { JobStatus } from './jobTypes';
import type { Connection } from 'mongoose';
import { jobModels } from './models';
import type {
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

/** A job as accepted: what the store does not default. */
export type NewJob = Pick<JobDoc, '_id' | 'orgId' | 'workspaceId' | 'applicationId' | 'familyId' | 'keyId' | 'status' | 'fields' | 'requested' | 'workflowId'> &
  Partial<Omit<JobDoc, 'seq' | 'listKey' | 'createdAt' | 'updatedAt'>>;

const leaseFree = (now: Date) => ({ $or: [{ outboxLeaseUntil: null }, { outboxLeaseUntil: { $lte: now } }] });

export const retrievedContactId = (orgId: string, personId: string) => `${orgId}:${personId}`;

/** The jobs area's store on the root's connection (core/deps.ts `createStores`). */
export function createJobStore(connection: Connection) {
  const models = jobModels(connection);
  /** The top of a workspace's jobs list: its latest number (0 when none) and whether unnumbered jobs lie below. */
  async function jobListHead(workspaceId: string): Promise<JobListHeadDoc> {
    const head = await models.jobListHeads.findById(workspaceId).lean<JobListHeadDoc>();
    return head ?? { _id: workspaceId, seq: 0, legacy: false };
  }

  /** One job by id, limited to an organization's workspace when given; null when absent. */
  async function findJob(where: { _id: string; orgId?: string; workspaceId?: string }): Promise<JobDoc | null> {
    return models.jobs.findOne(where).lean<JobDoc>();
  }

  /** Removes a job that was never accepted (its acceptance failed after it was recorded). */
  async function deleteJob(jobId: string): Promise<void> {
    await models.jobs.deleteOne({ _id: jobId });
  }

  /** Takes `count` numbers of the workspace's jobs; answers the first. */
  async function takeJobNumbers(workspaceId: string, count: number): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      try {
        const known = await models.jobListHeads.exists({ _id: workspaceId });
        // Jobs accepted before the workspace numbered any: the list reads them after the numbered ones.
        const legacy = known ? false : (await models.jobs.exists({ workspaceId })) !== null;
        // No projection: FerretDB's findAndModify does not take one.
        const head = await models.jobListHeads
          .findOneAndUpdate(
            { _id: workspaceId },
            { $inc: { seq: count }, ...(known ? {} : { $setOnInsert: { legacy } }) },
            { upsert: true, returnDocument: 'after' },
          )
          .lean<JobListHeadDoc>();
        return head!.seq - count + 1;
      } catch (err) {
        // Two first jobs of a workspace may both upsert its head; the loser takes the next number.
        if (!isDuplicateKeyError(err) || attempt >= NUMBER_ATTEMPTS) throw err;
      }
    }
  }

  /** Records an accepted job under the workspace's next number; answers it as stored. */
  async function insertJob(job: NewJob): Promise<JobDoc> {
    const seq = await takeJobNumbers(job.workspaceId, 1);
    const created = await models.jobs.create({ ...job, seq, listKey: jobListKey(job.workspaceId, seq) });
    return created.toObject() as JobDoc;
  }

  /**
   * Records jobs of one workspace at once, numbered in the order given (a benchmark's or a
   * drill's set-up); `createdAt`/`updatedAt` are kept as given.
   */
  async function insertJobs(workspaceId: string, jobs: Array<Omit<JobDoc, 'seq' | 'listKey'>>): Promise<void> {
    if (!jobs.length) return;
    const first = await takeJobNumbers(workspaceId, jobs.length);
    const docs = jobs.map((j, i) => ({ ...j, seq: first + i, listKey: jobListKey(workspaceId, first + i) }));
    await typedCollection<JobDoc>(models.jobs).insertMany(docs, { ordered: false });
  }

  /** The workspace's jobs numbered `from` down to `to` (inclusive; at most JOB_LIST_WINDOW), of `status` if given, highest number first. */
  async function numberedJobs(scope: { orgId: string; workspaceId: string }, from: number, to: number, status?: JobStatus): Promise<JobDoc[]> {
    const keys: string[] = [];
    for (let seq = from; seq >= to; seq--) keys.push(jobListKey(scope.workspaceId, seq));
    // The keys and the status only: with the organization or workspace in the filter too, SQLite
    // chose their indexes (every job of the organization) over the keys'. The key names the workspace.
    const filter: Record<string, unknown> = { listKey: { $in: keys } };
    if (status) filter.status = status;
    const docs = await models.jobs.find(filter).lean<JobDoc[]>();
    return docs.filter((d) => d.orgId === scope.orgId && d.workspaceId === scope.workspaceId).sort((a, b) => (b.seq ?? 0) - (a.seq ?? 0));
  }

  /**
   * Up to `limit` of the workspace's jobs, newest first by acceptance time, after the position
   * `after`; only jobs without a number when `unnumbered`, and of `status` if given.
   * FerretDB sorts these in memory: the list reads this way only the jobs accepted before numbering.
   */
  async function jobsByTime(
    scope: { orgId: string; workspaceId: string },
    q: { status?: JobStatus; unnumbered?: boolean; after?: { t: Date; id: string }; limit: number },
  ): Promise<JobDoc[]> {
    const filter: Record<string, unknown> = { workspaceId: scope.workspaceId, orgId: scope.orgId };
    if (q.status) filter.status = q.status;
    if (q.unnumbered) filter.seq = { $exists: false };
    if (q.after) filter.$or = [{ createdAt: { $lt: q.after.t } }, { createdAt: q.after.t, _id: { $lt: q.after.id } }];
    return models.jobs.find(filter).sort({ createdAt: -1, _id: -1 }).limit(q.limit).lean<JobDoc[]>();
  }

  /** Jobs by id (those that exist), in no order. */
  async function jobsByIds(jobIds: readonly string[]): Promise<JobDoc[]> {
    if (!jobIds.length) return [];
    return models.jobs.find({ _id: { $in: [...jobIds] } }).lean<JobDoc[]>();
  }

  /** Every job of the organizations (the chaos drill's check of a few small organizations). */
  async function jobsOfOrganizations(orgIds: readonly string[]): Promise<JobDoc[]> {
    return models.jobs.find({ orgId: { $in: [...orgIds] } }).lean<JobDoc[]>();
  }

  /** How many jobs are running, of the organizations if given, else of all (the chaos drill). */
  async function countRunningJobs(orgIds?: readonly string[]): Promise<number> {
    return models.jobs.countDocuments({ ...(orgIds ? { orgId: { $in: [...orgIds] } } : {}), status: 'running' });
  }

  /** Records a running job's end (once: false when it was no longer running); answers the job as stored then. */
  async function recordJobFinished(
    jobId: string,
    end: Pick<JobDoc, 'status' | 'counts' | 'stopReason' | 'completedAt' | 'resultExpiresAt' | 'resultPurgeAt'>,
  ): Promise<JobDoc | null> {
    return models.jobs.findOneAndUpdate({ _id: jobId, status: 'running' }, { $set: end }, { returnDocument: 'after' }).lean<JobDoc>();
  }

  /** Takes the job's outbox until `until` if something is due and nobody holds it; true when taken. */
  async function leaseJobOutbox(jobId: string, until: Date, now: Date): Promise<boolean> {
    const r = await models.jobs.updateOne({ _id: jobId, outboxDue: true, ...leaseFree(now) }, { $set: { outboxLeaseUntil: until } });
    return r.modifiedCount === 1;
  }

  async function freeJobOutbox(jobId: string): Promise<void> {
    await models.jobs.updateOne({ _id: jobId }, { $set: { outboxLeaseUntil: null } });
  }

  /** Up to `limit` jobs with something due in Temporal and no holder, oldest first. */
  async function jobIdsWithOutboxDue(limit: number, now: Date): Promise<string[]> {
    const docs = await models.jobs
      .find({ outboxDue: true, ...leaseFree(now) }, { _id: 1 })
      .sort({ createdAt: 1 })
      .limit(limit)
      .lean<Array<Pick<JobDoc, '_id'>>>();
    return docs.map((d) => d._id);
  }

  /** Records a cancel of a running job (the first request's time is kept); false when the job is not running. */
  async function recordCancelRequest(jobId: string, now: Date): Promise<boolean> {
    await models.jobs.updateOne({ _id: jobId, status: 'running', cancelRequestedAt: null }, { $set: { cancelRequestedAt: now } });
    const r = await models.jobs.updateOne({ _id: jobId, status: 'running' }, { $set: { cancelPending: true, outboxDue: true } });
    return r.matchedCount === 1;
  }

  async function recordWorkflowStarted(jobId: string, at: Date): Promise<void> {
    await models.jobs.updateOne({ _id: jobId }, { $set: { workflowStartedAt: at } });
  }

  /** The cancel asked for at `requestedAt` reached the workflow (a later one stays pending). */
  async function recordCancelDelivered(jobId: string, requestedAt: Date | null | undefined): Promise<void> {
    await models.jobs.updateOne({ _id: jobId, cancelRequestedAt: requestedAt }, { $set: { cancelPending: false } });
  }

  /** Clears the outbox of a job that owes Temporal nothing more: finished, or started with no cancel pending. */
  async function closeJobOutboxIfDone(jobId: string): Promise<void> {
    await models.jobs.updateOne(
      { _id: jobId, $or: [{ status: { $ne: 'running' } }, { workflowStartedAt: { $ne: null }, cancelPending: false }] },
      { $set: { outboxDue: false, outboxLeaseUntil: null } },
    );
  }

  async function recordResultExpired(jobId: string, now: Date): Promise<void> {
    await models.jobs.updateOne({ _id: jobId, resultExpiredAt: null }, { $set: { resultExpiredAt: now } });
  }

  async function recordResultPurged(jobId: string, now: Date): Promise<void> {
    await models.jobs.updateOne({ _id: jobId, resultPurgedAt: null }, { $set: { resultPurgedAt: now } });
  }

  async function insertJobPeople(doc: JobPeopleDoc): Promise<void> {
    await typedCollection<JobPeopleDoc>(models.jobPeople).insertOne(doc);
  }

  async function findJobPeople(jobId: string): Promise<JobPeopleDoc | null> {
    return models.jobPeople.findById(jobId).lean<JobPeopleDoc>();
  }

  async function deleteJobPeople(jobId: string): Promise<void> {
    await models.jobPeople.deleteOne({ _id: jobId });
  }

  /** Stores a chunk's plan unless one is stored under its id; true when this call stored it. */
  async function insertChunkPlan(plan: ChunkPlanDoc): Promise<boolean> {
    return insertOnce(typedCollection<ChunkPlanDoc>(models.chunkPlans), plan);
  }

  async function findChunkPlan(planId: string): Promise<ChunkPlanDoc | null> {
    return models.chunkPlans.findById(planId).lean<ChunkPlanDoc>();
  }

  async function chunkPlansOfJob(jobId: string): Promise<ChunkPlanDoc[]> {
    return models.chunkPlans.find({ jobId }).lean<ChunkPlanDoc[]>();
  }

  /** Stores a chunk's payment decision unless one is stored under its id; true when this call stored it. */
  async function insertChunkPayment(payment: ChunkPaymentDoc): Promise<boolean> {
    return insertOnce(typedCollection<ChunkPaymentDoc>(models.chunkPayments), payment);
  }

  async function findChunkPayment(paymentId: string): Promise<ChunkPaymentDoc | null> {
    return models.chunkPayments.findById(paymentId).lean<ChunkPaymentDoc>();
  }

  /** Stores a finished chunk's outcomes (a repeat stores nothing). */
  async function insertChunkProgress(progress: JobProgressDoc): Promise<void> {
    await insertManyIgnoringDuplicates(typedCollection<JobProgressDoc>(models.jobProgress), [progress]);
  }

  async function progressOfJob(jobId: string): Promise<JobProgressDoc[]> {
    return models.jobProgress.find({ jobId }).lean<JobProgressDoc[]>();
  }

  /** Removes what only a running job needs (plans, payments, progress, people) once it finished. */
  async function deleteJobWorkingDocuments(jobId: string): Promise<void> {
    await models.chunkPlans.deleteMany({ jobId });
    await models.chunkPayments.deleteMany({ jobId });
    await models.jobProgress.deleteMany({ jobId });
    await models.jobPeople.deleteOne({ _id: jobId });
  }

  /** Stores settled people in one bulk insert; those already stored are kept as they are. */
  async function insertJobItems(items: JobItemDoc[]): Promise<void> {
    await insertManyIgnoringDuplicates(typedCollection<JobItemDoc>(models.jobItems), items);
  }

  /** The position and outcome of every settled person of a job. */
  async function jobItemOutcomes(jobId: string): Promise<Array<Pick<JobItemDoc, 'seq' | 'outcome'>>> {
    return models.jobItems.find({ jobId }, { seq: 1, outcome: 1 }).lean<Array<Pick<JobItemDoc, 'seq' | 'outcome'>>>();
  }

  /** Up to `limit` settled people of a job after position `afterSeq`, in position order. */
  async function jobItemsAfter(jobId: string, afterSeq: number, limit: number): Promise<JobItemDoc[]> {
    return models.jobItems
      .find({ jobId, seq: { $gt: afterSeq } })
      .sort({ seq: 1 })
      .limit(limit)
      .lean<JobItemDoc[]>();
  }

  /** The outcomes of the items named `<job_id>:<seq>` that exist. */
  async function itemOutcomesByIds(itemIds: readonly string[]): Promise<Map<string, JobItemDoc['outcome']>> {
    if (!itemIds.length) return new Map();
    const docs = await models.jobItems.find({ _id: { $in: [...itemIds] } }, { outcome: 1 }).lean<Array<Pick<JobItemDoc, '_id' | 'outcome'>>>();
    return new Map(docs.map((d) => [String(d._id), d.outcome]));
  }

  async function deliveredPersonIdsOfJob(jobId: string): Promise<string[]> {
    const docs = await models.jobItems.find({ jobId, outcome: 'delivered' }, { personId: 1 }).lean<Array<Pick<JobItemDoc, 'personId'>>>();
    return docs.map((d) => d.personId);
  }

  /** Removes the contact values from a job's items (its result expired). */
  async function removeJobItemContacts(jobId: string): Promise<void> {
    await models.jobItems.updateMany({ jobId }, { $unset: { emails: '', phones: '' } });
  }

  async function deleteJobItems(jobId: string): Promise<void> {
    await models.jobItems.deleteMany({ jobId });
  }

  /** How many delivered people of the jobs carry a receipt (the chaos drill's charge check). */
  async function countChargedDeliveries(jobIds: readonly string[]): Promise<number> {
    return models.jobItems.countDocuments({ jobId: { $in: [...jobIds] }, outcome: 'delivered', receiptId: { $ne: null } });
  }

  /** The organization's records of `personIds` retrieved since `since`; read by id, so the cost is the list's, not the cache's. */
  async function retrievedContactsSince(orgId: string, personIds: readonly string[], since: Date): Promise<RetrievedContactDoc[]> {
    if (!personIds.length) return [];
    return models.retrievedContacts
      .find({ _id: { $in: personIds.map((p) => retrievedContactId(orgId, p)) }, retrievedAt: { $gte: since } })
      .lean<RetrievedContactDoc[]>();
  }

  /** Remembers delivered contacts: one bulk insert; an older record of a person is replaced. */
  async function rememberRetrievedContacts(docs: RetrievedContactDoc[]): Promise<void> {
    const { duplicates } = await insertManyIgnoringDuplicates(typedCollection<RetrievedContactDoc>(models.retrievedContacts), docs);
    // Already there: retrieved before the reuse window, or with fewer fields (rare: FerretDB updates scan).
    for (const i of duplicates) await models.retrievedContacts.replaceOne({ _id: docs[i]._id }, docs[i], { upsert: true });
  }

  /** Stores records as given, skipping those stored (a benchmark's set-up). */
  async function insertRetrievedContacts(docs: RetrievedContactDoc[]): Promise<number> {
    return (await insertManyIgnoringDuplicates(typedCollection<RetrievedContactDoc>(models.retrievedContacts), docs)).inserted;
  }

  async function retrievedContactExists(orgId: string, personId: string): Promise<boolean> {
    return (await models.retrievedContacts.exists({ _id: retrievedContactId(orgId, personId) })) !== null;
  }

  /** Moves a record's retrieval time (a benchmark's update by id). */
  async function touchRetrievedContact(orgId: string, personId: string, at: Date): Promise<void> {
    await models.retrievedContacts.updateOne({ _id: retrievedContactId(orgId, personId) }, { $set: { retrievedAt: at } });
  }

  /** Any record of the organization (a look-up by a secondary field, for the benchmark). */
  async function anyRetrievedContactOf(orgId: string): Promise<RetrievedContactDoc | null> {
    return models.retrievedContacts.findOne({ orgId }).lean<RetrievedContactDoc>();
  }

  /** Deletes the organization's records of `personIds` retrieved at or before `before` (a later retrieval keeps its record). */
  async function deleteRetrievedContacts(orgId: string, personIds: readonly string[], before: Date): Promise<void> {
    const ids = personIds.map((p) => retrievedContactId(orgId, p));
    for (let i = 0; i < ids.length; i += 1000) {
      await models.retrievedContacts.deleteMany({ _id: { $in: ids.slice(i, i + 1000) }, retrievedAt: { $lte: before } });
    }
  }

  async function claimsByIds(claimIds: readonly string[]): Promise<ContactFieldClaimDoc[]> {
    return typedCollection<ContactFieldClaimDoc>(models.fieldClaims)
      .find({ _id: { $in: [...claimIds] } })
      .toArray();
  }

  /** Inserts claims; answers the indexes (in `claims`) of those another job inserted first. */
  async function insertClaims(claims: ContactFieldClaimDoc[]): Promise<number[]> {
    return (await insertManyIgnoringDuplicates(typedCollection<ContactFieldClaimDoc>(models.fieldClaims), claims)).duplicates;
  }

  /** Deletes the job's claims among `claimIds` (another job's claim under one of those ids stays). */
  async function deleteClaimsOfJob(jobId: string, claimIds: readonly string[]): Promise<void> {
    if (claimIds.length === 1) await models.fieldClaims.deleteOne({ _id: claimIds[0], jobId });
    else if (claimIds.length) await models.fieldClaims.deleteMany({ _id: { $in: [...claimIds] }, jobId });
  }

  /** Claims a running-job slot; false when another job holds it (the unique `_id` decides across replicas). */
  async function insertJobSlot(slot: JobSlotDoc): Promise<boolean> {
    return insertOnce(typedCollection<JobSlotDoc>(models.jobSlots), slot);
  }

  async function jobSlotsOf(orgId: string): Promise<JobSlotDoc[]> {
    return models.jobSlots.find({ orgId }).sort({ slot: 1 }).lean<JobSlotDoc[]>();
  }

  /** Frees the slots the job holds. */
  async function deleteJobSlotsOfJob(orgId: string, jobId: string): Promise<void> {
    await models.jobSlots.deleteMany({ orgId, jobId });
  }

  /** Frees one slot if `jobId` still holds it; answers how many were freed (0 or 1). */
  async function deleteJobSlot(slotId: string, jobId: string): Promise<number> {
    return (await models.jobSlots.deleteOne({ _id: slotId, jobId })).deletedCount;
  }

  async function daySlotIdsOf(orgId: string, day: string): Promise<Set<string>> {
    return new Set((await models.daySlots.find({ orgId, day }, { _id: 1 }).lean<Array<Pick<JobDaySlotDoc, '_id'>>>()).map((d) => d._id));
  }

  /** Claims a daily slot; false when taken. */
  async function insertDaySlot(slot: JobDaySlotDoc): Promise<boolean> {
    return insertOnce(typedCollection<JobDaySlotDoc>(models.daySlots), slot);
  }

  async function deleteDaySlot(slotId: string): Promise<void> {
    await models.daySlots.deleteOne({ _id: slotId });
  }

  async function deleteExpiredDaySlots(now: Date): Promise<number> {
    return (await models.daySlots.deleteMany({ expiresAt: { $lte: now } })).deletedCount ?? 0;
  }

  /** The organization's own daily job cap, or null when it has none. */
  async function findDailyJobCap(orgId: string): Promise<number | null> {
    return (await models.dailyCaps.findById(orgId).lean<{ jobsPerDay: number }>())?.jobsPerDay ?? null;
  }

  /** Sets the organization's own daily job cap; null removes it. */
  async function saveDailyJobCap(orgId: string, jobsPerDay: number | null): Promise<void> {
    if (jobsPerDay === null) await models.dailyCaps.deleteOne({ _id: orgId });
    else await models.dailyCaps.replaceOne({ _id: orgId }, { _id: orgId, jobsPerDay }, { upsert: true });
  }

  // ---- whole reads and raw writes for tests and drills ----------------------------------------

  /** Every job recorded as running (a test's clean-up of the workflows it leaves). */
  async function runningJobIds(): Promise<string[]> {
    return (await models.jobs.find({ status: 'running' }, { _id: 1 }).lean<Array<Pick<JobDoc, '_id'>>>()).map((d) => d._id);
  }

  /** Jobs written as they are, without a number (as jobs accepted before the numbering were; a test's set-up). */
  async function insertUnnumberedJobs(jobs: Array<Omit<JobDoc, 'seq' | 'listKey'>>): Promise<void> {
    if (jobs.length) await typedCollection<JobDoc>(models.jobs).insertMany(jobs, { ordered: false });
  }

  /** Moves a job's `result_expires_at` (a test of an expired result). */
  async function setResultExpiresAt(jobId: string, at: Date): Promise<void> {
    await models.jobs.updateOne({ _id: jobId }, { $set: { resultExpiresAt: at } });
  }

  /** Every settled person of a job, in position order (a test's or a drill's check). */
  async function itemsOfJob(jobId: string): Promise<JobItemDoc[]> {
    return models.jobItems.find({ jobId }).sort({ seq: 1 }).lean<JobItemDoc[]>();
  }

  /** The settled people of any job who are among `personIds` (a test's check that nothing was recorded). */
  async function jobItemsNaming(personIds: readonly string[]): Promise<JobItemDoc[]> {
    return models.jobItems.find({ personId: { $in: [...personIds] } }).lean<JobItemDoc[]>();
  }

  /** The people lists that name any of `personIds` (a test's check that nothing was recorded). */
  async function jobPeopleNaming(personIds: readonly string[]): Promise<JobPeopleDoc[]> {
    return models.jobPeople.find({ personIds: { $in: [...personIds] } }).lean<JobPeopleDoc[]>();
  }

  /** Every contact field claim of the organization (a test's check). */
  async function claimsOfOrganization(orgId: string): Promise<ContactFieldClaimDoc[]> {
    return models.fieldClaims.find({ orgId }).lean<ContactFieldClaimDoc[]>();
  }

  /** Every daily slot of the organization, whatever its day (a test's check). */
  async function daySlotsOfOrganization(orgId: string): Promise<JobDaySlotDoc[]> {
    return models.daySlots.find({ orgId }).lean<JobDaySlotDoc[]>();
  }

  /** Moves the claim time of the slot the job holds (a test of a stale holder). */
  async function setJobSlotClaimedAt(orgId: string, jobId: string, claimedAt: Date): Promise<void> {
    await models.jobSlots.updateOne({ orgId, jobId }, { $set: { claimedAt } });
  }

  return {
    runningJobIds,
    insertUnnumberedJobs,
    setResultExpiresAt,
    itemsOfJob,
    jobItemsNaming,
    jobPeopleNaming,
    claimsOfOrganization,
    daySlotsOfOrganization,
    setJobSlotClaimedAt,
    jobListHead,
    findJob,
    deleteJob,
    insertJob,
    insertJobs,
    numberedJobs,
    jobsByTime,
    jobsByIds,
    jobsOfOrganizations,
    countRunningJobs,
    recordJobFinished,
    leaseJobOutbox,
    freeJobOutbox,
    jobIdsWithOutboxDue,
    recordCancelRequest,
    recordWorkflowStarted,
    recordCancelDelivered,
    closeJobOutboxIfDone,
    recordResultExpired,
    recordResultPurged,
    insertJobPeople,
    findJobPeople,
    deleteJobPeople,
    insertChunkPlan,
    findChunkPlan,
    chunkPlansOfJob,
    insertChunkPayment,
    findChunkPayment,
    insertChunkProgress,
    progressOfJob,
    deleteJobWorkingDocuments,
    insertJobItems,
    jobItemOutcomes,
    jobItemsAfter,
    itemOutcomesByIds,
    deliveredPersonIdsOfJob,
    removeJobItemContacts,
    deleteJobItems,
    countChargedDeliveries,
    retrievedContactsSince,
    rememberRetrievedContacts,
    insertRetrievedContacts,
    retrievedContactExists,
    touchRetrievedContact,
    anyRetrievedContactOf,
    deleteRetrievedContacts,
    claimsByIds,
    insertClaims,
    deleteClaimsOfJob,
    insertJobSlot,
    jobSlotsOf,
    deleteJobSlotsOfJob,
    deleteJobSlot,
    daySlotIdsOf,
    insertDaySlot,
    deleteDaySlot,
    deleteExpiredDaySlots,
    findDailyJobCap,
    saveDailyJobCap,
  };
}

export type JobStore = ReturnType<typeof createJobStore>;

/** What the jobs area's functions take first: the app's stores (`deps.stores`), of which they read the jobs'. */
export interface JobStores {
  readonly jobs: JobStore;
}
