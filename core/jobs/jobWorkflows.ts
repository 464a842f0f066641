import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/common';
import type { Config } from '../config';
import { SA } from '../temporal/searchAttributes';
import type { TemporalClients } from '../temporal/client';
import { contactRetrievalWorkflowId } from './jobRules';
import { CANCEL_SIGNAL, type ContactRetrievalInput } from './workflowInput';

/** The jobs' side of Temporal: start, probe and signal the `contact-retrieval:<job_id>` workflows. */
export async function startContactRetrievalWorkflow(
  temporal: TemporalClients,
  config: Config,
  input: ContactRetrievalInput,
  opts: { cancelAtStart?: boolean } = {},
  limitMs = config.temporal.callTimeoutMs,
): Promise<void> {
  await temporal.call(
    `the start of ${contactRetrievalWorkflowId(input.jobId)}`,
    (client) =>
      startContactRetrievalWorkflowWith(client, config.temporal.taskQueue, input, { ...opts, workflowTaskTimeoutMs: config.contactJobs.workflowTaskTimeoutMs }),
    limitMs,
  );
}

export async function startContactRetrievalWorkflowWith(
  client: Client,
  taskQueue: string,
  input: ContactRetrievalInput,
  opts: { cancelAtStart?: boolean; workflowTaskTimeoutMs?: number } = {},
): Promise<void> {
  const options = {
    workflowId: contactRetrievalWorkflowId(input.jobId),
    taskQueue,
    args: [input],
    ...(opts.workflowTaskTimeoutMs ? { workflowTaskTimeout: opts.workflowTaskTimeoutMs } : {}),
    // One workflow per job, ever: a start repeated by the outbox after the first closed is refused, not run again.
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    typedSearchAttributes: [
      { key: SA.orgId, value: input.orgId },
      { key: SA.workspaceId, value: input.workspaceId },
      { key: SA.jobId, value: input.jobId },
      { key: SA.jobStatus, value: 'running' },
    ],
  };
  try {
    if (opts.cancelAtStart) {
      // A job cancelled before its workflow started (during a Temporal outage): it starts stopped.
      await client.workflow.signalWithStart('contactRetrievalWorkflow', { ...options, signal: CANCEL_SIGNAL, signalArgs: [] });
    } else {
      await client.workflow.start('contactRetrievalWorkflow', options);
    }
  } catch (err) {
    // The workflow id makes every start idempotent: an earlier attempt (or another replica) started it.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** One call on the job's workflow within `limitMs`; undefined when there is no such workflow. */
async function onJobWorkflow<T>(
  temporal: TemporalClients,
  jobId: string,
  what: string,
  call: (handle: ReturnType<Client['workflow']['getHandle']>) => Promise<T>,
  limitMs: number,
): Promise<T | undefined> {
  const workflowId = contactRetrievalWorkflowId(jobId);
  try {
    return await temporal.call(`${what} of ${workflowId}`, (client) => call(client.workflow.getHandle(workflowId)), limitMs);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** Whether the job's workflow is still running (false when it is gone or closed). */
export async function contactRetrievalWorkflowRunning(temporal: TemporalClients, jobId: string, limitMs: number): Promise<boolean> {
  const description = await onJobWorkflow(temporal, jobId, 'a description', (handle) => handle.describe(), limitMs);
  return description?.status.name === 'RUNNING';
}

/** Asks the job to stop; false when its workflow no longer runs. */
export async function signalContactRetrievalCancel(temporal: TemporalClients, jobId: string, limitMs: number): Promise<boolean> {
  const signalled = await onJobWorkflow(temporal, jobId, 'the cancel signal', (handle) => handle.signal(CANCEL_SIGNAL).then(() => true), limitMs);
  return signalled ?? false;
}
