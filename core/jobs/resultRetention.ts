import { ContactRetrievalJob, ContactRetrievalJobItem, RetrievedContact } from './models';

/**
 * A finished job's result is kept for a while, then its contact values go (step 1), then the
 * result itself (step 2); the retention workflow calls these at the job's result times.
 */

/** Retention, step 1: past `result_expires_at` the contact values are removed (reads are 409). */
export async function expireJobResult(jobId: string, now = new Date()): Promise<void> {
  // Reads turn 409 first, so that no read in between shows delivered people without contacts.
  await ContactRetrievalJob.updateOne({ _id: jobId, resultExpiredAt: null }, { $set: { resultExpiredAt: now } });
  await ContactRetrievalJobItem.updateMany({ jobId }, { $unset: { emails: '', phones: '' } });
}

/** Retention, step 2: the result is deleted (reads are 410 `result_gone`). */
export async function purgeJobResult(jobId: string, now = new Date()): Promise<void> {
  const job = await ContactRetrievalJob.findById(jobId, { orgId: 1, completedAt: 1 }).lean();
  if (job?.completedAt) {
    // The reuse window of what this job retrieved is over too (30 days, as the purge): its
    // cached contacts go, unless a later job retrieved the person again.
    const delivered = await ContactRetrievalJobItem.find({ jobId, outcome: 'delivered' }, { personId: 1 }).lean();
    const ids = delivered.map((d) => `${job.orgId}:${d.personId}`);
    for (let i = 0; i < ids.length; i += 1000) {
      await RetrievedContact.deleteMany({ _id: { $in: ids.slice(i, i + 1000) }, retrievedAt: { $lte: job.completedAt } });
    }
  }
  await ContactRetrievalJobItem.deleteMany({ jobId });
  await ContactRetrievalJob.updateOne({ _id: jobId, resultPurgedAt: null }, { $set: { resultPurgedAt: now } });
}
