import { newId } from '../../core/ids';
import type { TemporalClients } from '../../core/temporal/client';
import { DELIVERY_WORKFLOW_TYPE, deliveryWorkflowId } from '../../core/webhooks/deliveryWorkflowContract';
import { recordAttempt } from '../../core/webhooks/webhookDeliveries';
import { fileStores } from './testStore';

/** Delivery workflows of these dead letters run on this queue, which no worker polls. */
const NO_WORKER_QUEUE = 'dead-letters-no-worker';

/**
 * A dead-lettered event of `endpointId` whose delivery workflow exists in Temporal, started on a
 * task queue no worker polls: it takes a replay signal as a real one does, and sends nothing.
 * Answers the event and its dead-lettered delivery (the one a replay names), written in the
 * file's stores.
 */
export async function deadLetterAwaitingReplay(
  temporal: TemporalClients,
  at: { orgId: string; workspaceId: string; endpointId: string },
): Promise<{ eventId: string; deliveryId: string }> {
  const eventId = newId('evt');
  const jobId = newId('job');
  const stores = fileStores();
  await stores.webhooks.events.insertEvent({
    _id: eventId,
    jobId,
    orgId: at.orgId,
    workspaceId: at.workspaceId,
    endpointId: at.endpointId,
    body: '{}',
    resultExpiresAt: null,
    status: 'dead_lettered',
  });
  const sent = new Date(Date.now() - 3600_000);
  const dead = await recordAttempt(stores, {
    eventId,
    replay: 0,
    attempt: 9,
    endpointId: at.endpointId,
    orgId: at.orgId,
    workspaceId: at.workspaceId,
    jobId,
    status: 'dead_lettered',
    responseStatus: 500,
    errorCode: 'http_status',
    durationMs: 12,
    scheduledAt: sent,
    attemptedAt: sent,
    nextAttemptAt: null,
  });
  const client = await temporal.client();
  await client.workflow.start(DELIVERY_WORKFLOW_TYPE, { taskQueue: NO_WORKER_QUEUE, workflowId: deliveryWorkflowId(eventId), args: [] });
  return { eventId, deliveryId: dead._id };
}

/** Ends the delivery workflows of `eventIds` (started by `deadLetterAwaitingReplay`). */
export async function endDeadLetterWorkflows(temporal: TemporalClients, eventIds: readonly string[]): Promise<void> {
  const client = await temporal.client();
  await Promise.all(
    eventIds.map((id) =>
      client.workflow
        .getHandle(deliveryWorkflowId(id))
        .terminate('test over')
        .catch(() => undefined),
    ),
  );
}
