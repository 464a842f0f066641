/** Contact-retrieval job vocabulary shared by jobs, results and the job.completed event (SPEC 2.5, 3.3). */
export const FINAL_JOB_STATUSES = ['completed', 'partial', 'failed', 'cancelled', 'expired'] as const;
export type FinalJobStatus = (typeof FINAL_JOB_STATUSES)[number];
export type JobStatus = 'running' | FinalJobStatus;

export interface JobCounts {
  requested: number;
  delivered: number;
  not_found: number;
  failed: number;
  reused: number;
  cancelled: number;
  pending: number;
}

export const COUNT_KEYS = ['requested', 'delivered', 'not_found', 'failed', 'reused', 'cancelled', 'pending'] as const;
