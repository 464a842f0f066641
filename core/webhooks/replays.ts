import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { Problem, retryLater } from '../problems';
import { withTemporalDeadline } from '../temporal/deadline';
import { deliveryWorkflowId, REPLAY_SIGNAL, type DeliveryRun } from './deliveryWorkflowContract';
import { WebhookEvent } from './models';
import { releaseReplaySlot, takeReplaySlot } from './replayAllowance';
import { findDelivery } from './webhookDeliveries';
import { activeEndpointOf } from './webhookEndpoints';

/**
 * `POST /v1/webhook-deliveries/{id}/replays` (SPEC 3.2, 6.4): only the dead-lettered last
 * attempt of an event's latest run may be replayed; the replay is a signal to the event's
 * workflow, which re-sends the same body bytes as a fresh run of up to nine attempts to the
 * workspace's current active endpoint.
 */
export interface ReplayAccepted {
  event_id: string;
  replay: number;
  endpoint_id: string;
  status: 'replaying';
}

function notAllowed(detail: string): Problem {
  return new Problem('replay_not_allowed', detail);
}

export async function requestReplay(
  workspaceId: string,
  deliveryId: string,
  client: Client,
  now = new Date(),
  signalLimitMs = 10_000,
): Promise<ReplayAccepted> {
  const delivery = await findDelivery(workspaceId, deliveryId);
  if (delivery.status !== 'dead_lettered') throw notAllowed('Only a dead-lettered delivery can be replayed.');
  const event = await WebhookEvent.findById(delivery.eventId).lean();
  if (!event || event.status !== 'dead_lettered' || event.replays !== delivery.replay) {
    throw notAllowed('This event has been replayed since; only its latest dead-lettered delivery can be replayed.');
  }
  const endpoint = await activeEndpointOf(workspaceId);
  if (!endpoint) throw notAllowed('The workspace has no active webhook endpoint to replay to.');

  const slot = await takeReplaySlot(delivery.endpointId, now);
  if (!slot.ok) {
    throw retryLater('webhook_replay_cap', 'More than 10 replays for this endpoint in the last hour.', slot.retryAfterSeconds);
  }
  const replay = delivery.replay + 1;
  // The transition is conditional on the run the checks saw: concurrent requests replay once.
  const moved = await WebhookEvent.updateOne(
    { _id: event._id, status: 'dead_lettered', replays: delivery.replay },
    { $set: { status: 'replaying' }, $inc: { replays: 1 } },
  );
  if (moved.modifiedCount !== 1) {
    await releaseReplaySlot(slot);
    throw notAllowed('This delivery is already being replayed.');
  }
  const run: DeliveryRun = { replay, endpointId: endpoint._id };
  try {
    await withTemporalDeadline(client.connection, { what: `the replay signal of ${event._id}`, limitMs: signalLimitMs }, () =>
      client.workflow.getHandle(deliveryWorkflowId(event._id)).signal(REPLAY_SIGNAL, run),
    );
  } catch (err) {
    await WebhookEvent.updateOne({ _id: event._id, status: 'replaying', replays: replay }, { $set: { status: 'dead_lettered' }, $inc: { replays: -1 } });
    await releaseReplaySlot(slot);
    if (err instanceof WorkflowNotFoundError) throw notAllowed('The replay window of this event has closed.');
    throw retryLater('dependency_unavailable', 'The delivery scheduler is unavailable; retry shortly.', 5, { cause: err });
  }
  return { event_id: event._id, replay, endpoint_id: endpoint._id, status: 'replaying' };
}
