import type { FinalJobStatus, JobCounts } from '../jobs/jobTypes';

/**
 * The `job.completed` envelope (SPEC 2.5). Serialised once, at first emission; the stored
 * string is the body of every attempt and replay. No personal data: ids of the job only.
 */
export interface JobCompletedEnvelope {
  type: 'job.completed';
  id: string;
  timestamp: string;
  data: {
    job_id: string;
    type: 'contact_retrieval';
    status: FinalJobStatus;
    counts: JobCounts;
    result_url: string;
    result_expires_at?: string;
  };
}

export function resultUrl(jobId: string): string {
  return `/v1/job-results/${encodeURIComponent(jobId)}`;
}

export function jobCompletedBody(input: {
  eventId: string;
  emittedAt: Date;
  jobId: string;
  status: FinalJobStatus;
  counts: JobCounts;
  resultExpiresAt: Date | null;
}): string {
  // Counts are copied key by key so nothing but the seven integers can ride along.
  const count = (k: keyof JobCounts) => Math.trunc(Number(input.counts[k] ?? 0));
  const counts: JobCounts = {
    requested: count('requested'),
    delivered: count('delivered'),
    not_found: count('not_found'),
    failed: count('failed'),
    reused: count('reused'),
    cancelled: count('cancelled'),
    pending: count('pending'),
  };
  const envelope: JobCompletedEnvelope = {
    type: 'job.completed',
    id: input.eventId,
    timestamp: input.emittedAt.toISOString(),
    data: {
      job_id: input.jobId,
      type: 'contact_retrieval',
      status: input.status,
      counts,
      result_url: resultUrl(input.jobId),
      ...(input.resultExpiresAt ? { result_expires_at: input.resultExpiresAt.toISOString() } : {}),
    },
  };
  return JSON.stringify(envelope);
}
