import type { KeyPrincipal } from '../keys/apiKeys';
import { Problem } from '../problems';
import { findOwnJob, jobCounts } from './contactRetrievalJobs';
import { cursorIndex, decodeListCursor, encodeListCursor, type CursorKey } from '../pageCursor';
import type { FailureReason, JobCounts, JobStatus, PersonOutcome } from './jobTypes';
import type { JobStores } from './store';

/**
 * `GET /v1/job-results/{job_id}` (SPEC 2.6, DECISIONS.md): the people of a job and what was
 * found, in pages. 409 `result_set_expired` once `result_expires_at` passed, 410
 * `result_gone` once the retention schedule purged it.
 */
export interface ResultItem {
  person_id: string;
  outcome: PersonOutcome;
  contacts: { emails: string[]; phones: string[] };
  receipt_id: string | null;
  /** Why the person failed; null otherwise. */
  reason: FailureReason | null;
}

export interface JobResultPage {
  job_id: string;
  status: JobStatus;
  counts: JobCounts;
  created_at: string;
  completed_at: string | null;
  result_expires_at: string | null;
  items: ResultItem[];
  next_cursor: string | null;
}

export async function readJobResult(
  stores: JobStores,
  cursorKey: CursorKey,
  principal: KeyPrincipal,
  jobId: string,
  q: { limit: number; cursor?: string },
  now: Date,
): Promise<JobResultPage> {
  const job = await findOwnJob(stores, principal, jobId);
  if (job.resultPurgedAt) throw new Problem('result_gone', 'This job result is no longer retained.');
  if (job.resultExpiredAt || (job.resultExpiresAt && job.resultExpiresAt.getTime() <= now.getTime())) {
    throw new Problem('result_set_expired', `This job result expired at ${(job.resultExpiresAt ?? job.resultExpiredAt)!.toISOString()}.`, {
      extensions: { result_expires_at: (job.resultExpiresAt ?? job.resultExpiredAt)!.toISOString() },
    });
  }
  const scope = `result:${principal.orgId}:${jobId}`;
  const after = q.cursor !== undefined ? decodeListCursor<{ seq: number }>(cursorKey, q.cursor, scope, { seq: cursorIndex }).seq : -1;
  const docs = await stores.jobs.jobItemsAfter(jobId, after, q.limit + 1);
  const page = docs.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    job_id: job._id,
    status: job.status,
    counts: await jobCounts(stores, job),
    created_at: job.createdAt.toISOString(),
    completed_at: job.completedAt ? job.completedAt.toISOString() : null,
    result_expires_at: job.resultExpiresAt ? job.resultExpiresAt.toISOString() : null,
    items: page.map((d) => {
      const shows = d.outcome === 'delivered' || d.outcome === 'reused';
      return {
        person_id: d.personId,
        outcome: d.outcome,
        contacts: { emails: shows ? (d.emails ?? []) : [], phones: shows ? (d.phones ?? []) : [] },
        receipt_id: d.receiptId ?? null,
        reason: d.reason ?? null,
      };
    }),
    next_cursor: docs.length > q.limit && last ? encodeListCursor(cursorKey, scope, { seq: last.seq }) : null,
  };
}
