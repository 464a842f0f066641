import type { Config } from '../config';
import type { Logger } from '../observability/logger';
import type { TemporalClients } from '../temporal/client';
import { isTemporalUnanswered } from '../temporal/deadline';
import { contactRetrievalWorkflowRunning, signalContactRetrievalCancel, startContactRetrievalWorkflow } from './jobWorkflows';
import type { JobStores } from './store';
import type { ContactRetrievalInput } from './workflowInput';

/**
 * The jobs' outbox: a job is accepted once it is recorded in the store, with its workflow's
 * input and `outboxDue`; what Temporal must do for it (start `contact-retrieval:<job_id>`,
 * deliver a cancel) is carried out from that record, first by the request itself within
 * TEMPORAL_START_WAIT_MS, else by the workflow starter of any API replica or worker. Every
 * start is idempotent (the workflow id), a cancel recorded before the start makes the start a
 * signal-with-start, and a lease keeps replicas from working on the same job at once.
 */

/** How a job reaches Temporal; workflow tests substitute their own test server's client. */
export interface JobStarter {
  /** Starts the job's workflow; one already started counts as started. */
  start: (input: ContactRetrievalInput, opts?: { cancelAtStart?: boolean }) => Promise<void>;
  running: (jobId: string) => Promise<boolean>;
  /** Delivers the cancel signal; false when the workflow no longer runs. */
  cancel?: (jobId: string) => Promise<boolean>;
}

/** Through the app's Temporal clients, each call within `limitMs`. */
export function temporalJobStarter(temporal: TemporalClients, config: Config, limitMs = config.temporal.callTimeoutMs): JobStarter {
  return {
    start: (input, opts) => startContactRetrievalWorkflow(temporal, config, input, opts, limitMs),
    running: (jobId) => contactRetrievalWorkflowRunning(temporal, jobId, limitMs),
    cancel: (jobId) => signalContactRetrievalCancel(temporal, jobId, limitMs),
  };
}

/** Takes the job's outbox for `holdMs`; false when another process holds it or nothing is due. */
export async function claimJobOutbox(stores: JobStores, jobId: string, holdMs: number, now: Date): Promise<boolean> {
  return stores.jobs.leaseJobOutbox(jobId, new Date(now.getTime() + holdMs), now);
}

/** Gives the job back to the starters at once (after a failed attempt). */
export async function releaseJobOutbox(stores: JobStores, jobId: string): Promise<void> {
  await stores.jobs.freeJobOutbox(jobId);
}

/** Jobs with something due and no live lease, oldest first. */
export async function jobsWithOutboxDue(stores: JobStores, limit: number, now: Date): Promise<string[]> {
  return stores.jobs.jobIdsWithOutboxDue(limit, now);
}

/**
 * Records a cancel (kept when Temporal is down; carried out when it answers). False when the job
 * is not running any more.
 */
export async function recordJobCancel(stores: JobStores, jobId: string, now: Date): Promise<boolean> {
  return stores.jobs.recordCancelRequest(jobId, now);
}

/**
 * Carries out what the job's record still asks of Temporal, by the caller that holds its lease.
 * Throws what Temporal threw (the record stays due); on success nothing is due any more, unless
 * a cancel arrived meanwhile (it stays due for the next attempt).
 */
export async function carryOutJobOutbox(stores: JobStores, jobId: string, starter: JobStarter, now: Date): Promise<void> {
  const job = await stores.jobs.findJob({ _id: jobId });
  if (!job || !job.outboxDue) return;
  if (job.status === 'running' && !job.workflowStartedAt) {
    if (!job.workflowInput) throw new Error(`job ${jobId} has no recorded workflow input`);
    const cancelAtStart = job.cancelRequestedAt !== null && job.cancelRequestedAt !== undefined;
    await starter.start(job.workflowInput, { cancelAtStart });
    await stores.jobs.recordWorkflowStarted(jobId, now);
    // Started with the cancel this read saw: that cancel is delivered (a later one stays pending).
    if (cancelAtStart) await stores.jobs.recordCancelDelivered(jobId, job.cancelRequestedAt);
  }
  const latest = await stores.jobs.findJob({ _id: jobId });
  if (latest?.status === 'running' && latest.cancelPending) {
    // False: the workflow is gone or closed; nothing is left to stop.
    await (starter.cancel ?? (async () => false))(jobId);
    await stores.jobs.recordCancelDelivered(jobId, latest.cancelRequestedAt);
  }
  // A job that finished owes Temporal nothing any more; one still running owes nothing once started and signalled.
  await stores.jobs.closeJobOutboxIfDone(jobId);
}

/**
 * The request's own attempt: claim, carry out within the request's short limit, and on failure
 * leave the job to the starters (released at once, so the next starter pass takes it).
 */
export async function carryOutOnRequest(
  jobId: string,
  starter: JobStarter,
  holdMs: number,
  app: { logger: Logger; now: () => number; stores: JobStores },
  opts: { claimed?: boolean } = {},
): Promise<void> {
  const { logger, stores } = app;
  // A job just created is recorded with the request's lease already on it.
  if (!opts.claimed && !(await claimJobOutbox(stores, jobId, holdMs, new Date(app.now())))) return;
  try {
    await carryOutJobOutbox(stores, jobId, starter, new Date(app.now()));
  } catch (err) {
    const unanswered = isTemporalUnanswered(err);
    logger[unanswered ? 'warn' : 'error'](
      { jobId, err: { name: (err as Error)?.name, message: (err as Error)?.message } },
      'job recorded; its workflow is left to the workflow starter',
    );
    await releaseJobOutbox(stores, jobId).catch(() => undefined);
  }
}
