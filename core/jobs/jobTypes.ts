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

/** What happened to one person of a job; `pending` until the job reaches them. */
export const PERSON_OUTCOMES = ['pending', 'delivered', 'not_found', 'failed', 'reused', 'cancelled'] as const;
export type PersonOutcome = (typeof PERSON_OUTCOMES)[number];

/** Why a person is `failed`; stable strings shown in results. */
export const FAILURE_REASONS = [
  'provider_unavailable',
  'provider_rejected',
  'insufficient_credits',
  'delivery_quota_exceeded',
  'job_expired',
  'processing_error',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** Why a job stopped before reaching every person. */
export type StopReason = 'cancelled' | 'expired' | 'insufficient_credits';

export const JOB_TYPE = 'contact_retrieval';
