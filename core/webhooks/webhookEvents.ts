import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { isDuplicateKeyError } from '../store/connection';
import { newId } from '../ids';
import { SA } from '../temporal/searchAttributes';
import type { JobCompletedInput, EmittedEvent } from './jobCompletedEvent';
import { DELIVERY_WORKFLOW_TYPE, deliveryWorkflowId, type WebhookDeliveryInput } from './deliveryWorkflowContract';
import { jobCompletedBody } from './eventEnvelope';
import { WebhookEvent, type WebhookEventDoc } from './models';
import { activeEndpointOf } from './webhookEndpoints';

/**
 * Emission of `job.completed` (SPEC 6): one event record per job, written once with its final
 * body bytes, and at most one delivery workflow per event. Safe to call again for the same
 * job (the job's finishing activity may be retried): the second call finds the first record.
 */
export interface EmitDeps {
  client: Client;
  taskQueue: string;
  retryDelaysMs?: readonly number[];
  /** Off only where the Temporal server does not know our search attributes. */
  searchAttributes?: boolean;
  now?: () => Date;
}

async function recordEvent(input: JobCompletedInput, now: Date): Promise<WebhookEventDoc> {
  const existing = await WebhookEvent.findOne({ jobId: input.jobId }).lean<WebhookEventDoc>();
  if (existing) return existing;
  // The endpoint active at this moment receives the event; none active means no delivery.
  const endpoint = await activeEndpointOf(input.workspaceId);
  const eventId = newId('evt');
  const body = jobCompletedBody({
    eventId,
    emittedAt: now,
    jobId: input.jobId,
    status: input.status,
    counts: input.counts,
    resultExpiresAt: input.resultExpiresAt,
  });
  try {
    const doc = await WebhookEvent.create({
      _id: eventId,
      jobId: input.jobId,
      orgId: input.orgId,
      workspaceId: input.workspaceId,
      endpointId: endpoint?._id ?? null,
      body,
      resultExpiresAt: input.resultExpiresAt,
      status: endpoint ? 'delivering' : 'no_endpoint',
    });
    return doc.toObject() as WebhookEventDoc;
  } catch (err) {
    // A concurrent emission for the same job won: its record (and body bytes) is the event.
    if (!isDuplicateKeyError(err)) throw err;
    const winner = await WebhookEvent.findOne({ jobId: input.jobId }).lean<WebhookEventDoc>();
    if (!winner) throw err;
    return winner;
  }
}

export async function emitJobCompletedWith(deps: EmitDeps, input: JobCompletedInput): Promise<EmittedEvent> {
  const now = deps.now?.() ?? new Date();
  const event = await recordEvent(input, now);
  if (!event.endpointId) return { eventId: event._id, deliveryStarted: false };
  const workflowInput: WebhookDeliveryInput = {
    eventId: event._id,
    orgId: event.orgId,
    workspaceId: event.workspaceId,
    jobId: event.jobId,
    run: { replay: 0, endpointId: event.endpointId },
    ...(deps.retryDelaysMs ? { retryDelaysMs: [...deps.retryDelaysMs] } : {}),
    ...(deps.searchAttributes === false ? { indexed: false } : {}),
  };
  try {
    await deps.client.workflow.start(DELIVERY_WORKFLOW_TYPE, {
      taskQueue: deps.taskQueue,
      workflowId: deliveryWorkflowId(event._id),
      args: [workflowInput],
      // Never a second workflow for one event, not even after the first has closed.
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      ...(deps.searchAttributes === false
        ? {}
        : {
            typedSearchAttributes: [
              { key: SA.orgId, value: event.orgId },
              { key: SA.workspaceId, value: event.workspaceId },
              { key: SA.endpointId, value: event.endpointId },
              { key: SA.jobId, value: event.jobId },
              { key: SA.deliveryStatus, value: 'delivering' },
            ],
          }),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return { eventId: event._id, deliveryStarted: true };
}
