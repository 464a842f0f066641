import type { CreditStores } from '../credits/store';
import type { TalentStores } from '../talent/store';
import { payAndSettle, storeJobItems } from './chunkSettlement';
import { releaseDeliveries } from './deliveryReservations';
import { uncachedJobPeople, type JobPeopleReads } from './jobPeople';
import { countsFromTally, finalJobStatus, leftoverOutcome, resultTimes } from './jobRules';
import { releaseJobSlot } from './jobSlots';
import type { FinalJobStatus, JobCounts, StopReason } from './jobTypes';
import type { JobDoc, JobStores } from './store';
import { addTally, mergeTally, type Tally } from './tally';

/** Outcomes of a job's people, counted in the store. */
export async function tallyJobItems(stores: JobStores, jobId: string): Promise<Tally> {
  const docs = await stores.jobs.jobItemOutcomes(jobId);
  const tally: Tally = {};
  for (const d of docs) addTally(tally, d.outcome);
  return tally;
}

export interface FinishedJob {
  jobId: string;
  orgId: string;
  workspaceId: string;
  status: FinalJobStatus;
  counts: JobCounts;
  completedAt: string;
  resultExpiresAt: string | null;
  resultPurgeAt: string;
}

function finishedView(job: JobDoc): FinishedJob {
  if (job.status === 'running' || !job.counts || !job.completedAt || !job.resultPurgeAt) throw new Error(`job ${job._id} is not finished`);
  return {
    jobId: job._id,
    orgId: job.orgId,
    workspaceId: job.workspaceId,
    status: job.status,
    counts: job.counts,
    completedAt: job.completedAt.toISOString(),
    resultExpiresAt: job.resultExpiresAt ? job.resultExpiresAt.toISOString() : null,
    resultPurgeAt: job.resultPurgeAt.toISOString(),
  };
}

/**
 * Ends a job: settles everyone still pending (a chunk whose plan was paid before the stop is
 * delivered as paid; the rest get the stop's outcome), stores the final counts, status and
 * retention times, frees the running-job slot and drops the job's working documents.
 * Repeating it returns the first finish.
 */
/** A chunk the workflow saw finish, with its outcomes (from the activity's result). */
export interface CompletedChunk {
  from: number;
  to: number;
  tally: Tally;
}

/**
 * Ends a job: settles everyone still pending (a chunk whose plan was paid before the stop is
 * delivered as paid; the rest get the stop's outcome), stores the final counts, status and
 * retention times, frees the running-job slot and drops the job's working documents.
 * Repeating it returns the first finish.
 */
export async function finishJob(
  stores: CreditStores & TalentStores & JobStores,
  jobId: string,
  stop: StopReason | null,
  now: Date,
  completed: CompletedChunk[] = [],
  people: JobPeopleReads = uncachedJobPeople(stores),
): Promise<FinishedJob> {
  const job = await stores.jobs.findJob({ _id: jobId });
  if (!job) throw new Error(`job ${jobId} does not exist`);
  if (job.status !== 'running') {
    await releaseJobSlot(stores, job.orgId, jobId);
    await releaseReservation(stores, job);
    await dropWorkingDocuments(stores, jobId, people);
    return finishedView(job);
  }
  const tally: Tally = {};
  const chunks = new Map(completed.map((c) => [c.from, c]));
  let leftoverCount = 0;
  if ([...chunks.values()].reduce((n, c) => n + (c.to - c.from), 0) === job.requested) {
    // Every chunk finished and reported its outcomes: nothing to settle, nothing to read.
    for (const c of chunks.values()) mergeTally(tally, c.tally);
  } else {
    leftoverCount = await settleTheRest(stores, job, stop, tally, now, people);
  }
  const counts = countsFromTally(job.requested, tally);
  const status = finalJobStatus(counts, stop, stop ? leftoverCount : 0);
  const times = resultTimes(now, counts);
  const updated = await stores.jobs.recordJobFinished(jobId, {
    status,
    counts,
    stopReason: stop,
    completedAt: now,
    resultExpiresAt: times.resultExpiresAt,
    resultPurgeAt: times.resultPurgeAt,
  });
  await releaseJobSlot(stores, job.orgId, jobId);
  await releaseReservation(stores, job);
  await dropWorkingDocuments(stores, jobId, people);
  return finishedView(updated ?? (await stores.jobs.findJob({ _id: jobId }))!);
}

/**
 * Settles everyone without an item: a chunk whose plan was paid before the stop is delivered
 * as paid, the rest get the stop's outcome. Fills `tally` with every person's outcome and
 * returns how many got the stop's outcome.
 */
async function settleTheRest(
  stores: CreditStores & JobStores,
  job: Pick<JobDoc, '_id' | 'orgId' | 'familyId' | 'fields'>,
  stop: StopReason | null,
  tally: Tally,
  now: Date,
  reads: JobPeopleReads,
): Promise<number> {
  const jobId = job._id;
  const fields = job.fields;
  const people = await reads.people(jobId);
  const settledSeqs = new Set<number>();
  for (const d of await stores.jobs.jobItemOutcomes(jobId)) {
    settledSeqs.add(d.seq);
    addTally(tally, d.outcome);
  }
  if (settledSeqs.size < people.length) {
    // Chunks that stored a plan but were stopped before settling: settle them with the charge
    // an attempt made (if any); found people nobody paid for become leftovers below.
    for (const p of await stores.jobs.chunkPlansOfJob(jobId)) {
      if (!p.entries.some((e) => !settledSeqs.has(e.seq))) continue;
      const { settled } = await payAndSettle(stores, { jobId, orgId: job.orgId, familyId: job.familyId, fields }, p.from, p.entries, now, { charge: false });
      for (const s of settled) {
        if (settledSeqs.has(s.seq)) continue;
        settledSeqs.add(s.seq);
        addTally(tally, s.outcome);
      }
    }
  }
  const leftover = leftoverOutcome(stop);
  const leftovers = people.map((personId, seq) => ({ personId, seq })).filter((p) => !settledSeqs.has(p.seq));
  await storeJobItems(
    stores,
    jobId,
    leftovers.map((p) => ({ ...p, outcome: leftover.outcome, reason: leftover.reason, emails: [], phones: [], receiptId: null })),
    now,
  );
  addTally(tally, leftover.outcome, leftovers.length);
  return leftovers.length;
}

/** What the job did not use of its delivery-quota reservation goes back to the organization. */
async function releaseReservation(
  stores: TalentStores,
  job: { _id: string; orgId: string; deliveryQuotaAt?: Date | null; deliveriesReserved?: number | null },
): Promise<void> {
  if (job.deliveryQuotaAt && job.deliveriesReserved) await releaseDeliveries(stores, job.orgId, job._id, job.deliveryQuotaAt.getTime());
}

/** The job's people list and chunk plans (contact values among them) are only for running jobs. */
async function dropWorkingDocuments(stores: JobStores, jobId: string, people: JobPeopleReads): Promise<void> {
  await stores.jobs.deleteJobWorkingDocuments(jobId);
  people.forget(jobId);
}
