import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Config } from '../config';
import { SA } from '../temporal/searchAttributes';
import { temporalCall } from '../temporal/client';
import { contactRetrievalWorkflowId } from './jobRules';
import { CANCEL_SIGNAL, type ContactRetrievalInput } from './workflowInput';

/** The jobs' side of Temporal: start, probe and signal the `contact-retrieval:<job_id>` workflows. */
export async function startContactRetrievalWorkflow(config: Config, input: ContactRetrievalInput, limitMs = config.temporal.callTimeoutMs): Promise<void> {
  await temporalCall(
    config,
    `the start of ${contactRetrievalWorkflowId(input.jobId)}`,
    (client) => startContactRetrievalWorkflowWith(client, config.temporal.taskQueue, input),
    limitMs,
  );
}

export async function startContactRetrievalWorkflowWith(
  client: Client,
  taskQueue: string,
  input: ContactRetrievalInput,
  opts: { cancelAtStart?: boolean } = {},
): Promise<void> {
  const options = {
    workflowId: contactRetrievalWorkflowId(input.jobId),
    taskQueue,
    args: [input],
    typedSearchAttributes: [
      { key: SA.orgId, value: input.orgId },
      { key: SA.workspaceId, value: input.workspaceId },
      { key: SA.jobId, value: input.jobId },
      { key: SA.jobStatus, value: 'running' },
    ],
  };
  if (opts.cancelAtStart) {
    // Tests: a job cancelled before its first step.
    await client.workflow.signalWithStart('contactRetrievalWorkflow', { ...options, signal: CANCEL_SIGNAL, signalArgs: [] });
  } else {
    await client.workflow.start('contactRetrievalWorkflow', options);
  }
}

/** Whether the job's workflow is still running (false when it is gone or closed). */
export async function contactRetrievalWorkflowRunning(config: Config, jobId: string): Promise<boolean> {
  try {
    const d = await temporalCall(config, `a description of ${contactRetrievalWorkflowId(jobId)}`, (client) =>
      client.workflow.getHandle(contactRetrievalWorkflowId(jobId)).describe(),
    );
    return d.status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** Asks the job to stop; false when its workflow no longer runs. */
export async function signalContactRetrievalCancel(config: Config, jobId: string, limitMs = config.temporal.callTimeoutMs): Promise<boolean> {
  try {
    await temporalCall(
      config,
      `the cancel signal of ${contactRetrievalWorkflowId(jobId)}`,
      (client) => client.workflow.getHandle(contactRetrievalWorkflowId(jobId)).signal(CANCEL_SIGNAL),
      limitMs,
    );
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
