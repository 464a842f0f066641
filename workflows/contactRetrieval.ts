import {
  ActivityCancellationType,
  CancellationScope,
  ParentClosePolicy,
  defineSignal,
  isCancellation,
  proxyActivities,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
  ActivityFailure,
} from '@temporalio/workflow';
import type { ContactActivities } from '../activities/contacts';
import { JOB_DEADLINE_MS, chunkRanges, resultRetentionWorkflowId } from '../core/jobs/jobRules';
import type { CompletedChunk, FinishedJob } from '../core/jobs/jobFinish';
import type { StopReason } from '../core/jobs/jobTypes';
import { CANCEL_SIGNAL, type ContactRetrievalInput } from '../core/jobs/workflowInput';
import { SA } from '../core/temporal/searchAttributes';
import { resultRetentionWorkflow } from './retention';

/** Cancel: people not yet processed become `cancelled`. */
export const cancelContactRetrieval = defineSignal(CANCEL_SIGNAL);

/**
 * One contact-retrieval job, `contact-retrieval:<job_id>`. People are processed in chunks, a
 * bounded number at a time. A cancel or running out of credits stops new chunks and lets the
 * ones in flight finish; the 24 h deadline also cancels chunks in flight (a chunk stuck on an
 * outage retries until then) and waits for them to stop. The finish then settles everyone
 * left (a person charged before the stop is delivered), stores the result, emits
 * `job.completed` once and hands the result to its retention schedule.
 */
/** What is left of the job's deadline, counted from its acceptance (a workflow started late, after a Temporal outage, gets less). */
function deadlineLeft(input: ContactRetrievalInput): number {
  const limit = input.deadlineMs ?? JOB_DEADLINE_MS;
  if (input.acceptedAtMs === undefined) return limit;
  return Math.max(1, input.acceptedAtMs + limit - Date.now());
}

export async function contactRetrievalWorkflow(input: ContactRetrievalInput): Promise<FinishedJob> {
  const people = proxyActivities<ContactActivities>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: input.heartbeatTimeoutMs,
    // Provider faults are bounded inside the activity; what fails the activity itself is an
    // outage of our own (store, worker), retried until the job's deadline, at least hourly.
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 hour' },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  const steps = proxyActivities<ContactActivities>({
    startToCloseTimeout: '2 minutes',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
  });

  let stop: StopReason | null = null;
  const stopWith = (reason: StopReason) => {
    if (stop === null) stop = reason;
  };
  setHandler(cancelContactRetrieval, () => stopWith('cancelled'));

  // One look at the organization's recent retrievals per job, instead of one per chunk.
  const reusable = stop === null ? await steps.planContactReuse({ jobId: input.jobId, orgId: input.orgId, fields: input.fields }) : [];
  const chunks = chunkRanges(input.requested, input.chunkSize);
  // Chunks that finished, with their outcomes: when all did, the finish reads nothing back.
  const completed: CompletedChunk[] = [];
  let next = 0;
  const lane = async () => {
    while (stop === null && next < chunks.length) {
      const { from, to } = chunks[next++];
      try {
        const r = await people.processContactChunk({
          jobId: input.jobId,
          orgId: input.orgId,
          familyId: input.familyId,
          ...(input.agent ? { agent: input.agent } : {}),
          fields: input.fields,
          from,
          to,
          reusable: reusable.filter((p) => p >= from && p < to),
        });
        completed.push({ from, to, tally: r.tally });
        if (r.outOfCredits) stopWith('insufficient_credits');
      } catch (err) {
        // Cancelled at the deadline, or the activity failed for good: the finish settles its people.
        if (isCancellation(err)) return;
        if (!(err instanceof ActivityFailure)) throw err;
      }
    }
  };

  const work = new CancellationScope();
  const deadline = new CancellationScope();
  const deadlineFired = deadline
    .run(() => sleep(deadlineLeft(input)))
    .then(
      () => {
        stopWith('expired');
        work.cancel();
      },
      () => undefined,
    );
  try {
    await work.run(() => Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency, chunks.length)) }, lane)));
  } catch (err) {
    if (!isCancellation(err)) throw err;
  }
  deadline.cancel();
  await deadlineFired;

  const finished = await steps.finishContactRetrievalJob({ jobId: input.jobId, stop, completed });
  upsertSearchAttributes([{ key: SA.jobStatus, value: finished.status }]);
  await steps.emitContactRetrievalCompleted(finished);
  await startChild(resultRetentionWorkflow, {
    workflowId: resultRetentionWorkflowId(input.jobId),
    args: [{ jobId: input.jobId, completedAt: finished.completedAt }],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: [
      { key: SA.orgId, value: input.orgId },
      { key: SA.workspaceId, value: input.workspaceId },
      { key: SA.jobId, value: input.jobId },
    ],
  });
  return finished;
}
