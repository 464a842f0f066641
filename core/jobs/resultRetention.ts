import type { JobStores } from './store';

/**
 * A finished job's result is kept for a while, then its contact values go (step 1), then the
 * result itself (step 2); the retention workflow calls these at the job's result times.
 */

/** Retention, step 1: past `result_expires_at` the contact values are removed (reads are 409). */
export async function expireJobResult(stores: JobStores, jobId: string, now: Date): Promise<void> {
  // Reads turn 409 first, so that no read in between shows delivered people without contacts.
  await stores.jobs.recordResultExpired(jobId, now);
  await stores.jobs.removeJobItemContacts(jobId);
}

/** Retention, step 2: the result is deleted (reads are 410 `result_gone`). */
export async function purgeJobResult(stores: JobStores, jobId: string, now: Date): Promise<void> {
  const job = await stores.jobs.findJob({ _id: jobId });
  if (job?.completedAt) {
    // The reuse window of what this job retrieved is over too (30 days, as the purge): its
    // cached contacts go, unless a later job retrieved the person again.
    await stores.jobs.deleteRetrievedContacts(job.orgId, await stores.jobs.deliveredPersonIdsOfJob(jobId), job.completedAt);
  }
  await stores.jobs.deleteJobItems(jobId);
  await stores.jobs.recordResultPurged(jobId, now);
}
