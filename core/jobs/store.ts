import { isDuplicateKeyError } from '../store/connection';
import { typedCollection } from '../store/typedCollection';
import type { JobStatus } from './jobTypes';
import { ContactRetrievalJob, ContactRetrievalJobListHead, type JobDoc, type JobListHeadDoc } from './models';

/**
 * The jobs area's store: the one module that reads and writes its collections (jobs, their
 * people, chunk plans and payments, progress, items, retrieved contacts, running-job and daily
 * slots, daily caps, contact field claims). It answers with plain records; the rules (caps,
 * charging, settling, retention) live with the callers.
 */

export type { JobDoc } from './models';

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
  const filter: Record<string, unknown> = { listKey: { $in: keys }, workspaceId: scope.workspaceId, orgId: scope.orgId };
  if (status) filter.status = status;
  const docs = await ContactRetrievalJob.find(filter).lean<JobDoc[]>();
  return docs.sort((a, b) => (b.seq ?? 0) - (a.seq ?? 0));
}

/**
 * Up to `limit` of the workspace's jobs, newest first by acceptance time, after the position
 * `after`; only jobs without a number when `unnumbered`, and of `status` if given.
 * FerretDB sorts these in memory: the list reads this way only running jobs (a few, found by
 * the pushed-down status) and jobs accepted before numbering.
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

/**
 * Ids of the organization's running jobs, at most `max`.
 * FerretDB: `orgId` and `status` equalities are pushed down, so only running jobs are read.
 */
export async function runningJobIdsOfOrganization(orgId: string, max: number): Promise<string[]> {
  const docs = await ContactRetrievalJob.find({ orgId, status: 'running' }, { _id: 1 }).limit(max).lean<Array<Pick<JobDoc, '_id'>>>();
  return docs.map((d) => d._id);
}
