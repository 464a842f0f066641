import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { Problem, retryLater } from '../problems';
import { isTemporalUnanswered, withTemporalDeadline } from '../temporal/deadline';
import { deliveryWorkflowId, REPLAY_SIGNAL, type DeliveryRun } from './deliveryWorkflowContract';
import type { WebhookStores } from './store/webhookStore';
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

/** Sends a replay run to the event's delivery workflow (within the caller's limit). */
export type ReplaySignaller = (eventId: string, run: DeliveryRun) => Promise<void>;

/** The signal through a client, within `limitMs`. */
export function replaySignaller(client: Client, limitMs = 10_000): ReplaySignaller {
  return (eventId, run) =>
    withTemporalDeadline(client.connection, { what: `the replay signal of ${eventId}`, limitMs }, () =>
      client.workflow.getHandle(deliveryWorkflowId(eventId)).signal(REPLAY_SIGNAL, run),
    );
}

/** The rule of a replay: the dead-lettered last attempt of the event's latest run, and the event not replayed since. */
export function isReplayable(delivery: { status: string; replay: number }, event: { status: string; replays: number } | null): boolean {
  return delivery.status === 'dead_lettered' && event !== null && event.status === 'dead_lettered' && event.replays === delivery.replay;
}

/** The ids of the deliveries among `deliveries` that may be replayed now (a page offers "Replay" on those only). */
export async function replayableAmong(
  stores: WebhookStores,
  deliveries: readonly { delivery_id: string; event_id: string; status: string; replay: number }[],
): Promise<Set<string>> {
  const dead = deliveries.filter((d) => d.status === 'dead_lettered');
  if (dead.length === 0) return new Set();
  const events = await stores.webhooks.events.replayStatesOf([...new Set(dead.map((d) => d.event_id))]);
  const byId = new Map(events.map((e) => [e._id, e]));
  return new Set(dead.filter((d) => isReplayable(d, byId.get(d.event_id) ?? null)).map((d) => d.delivery_id));
}

export async function requestReplay(
  stores: WebhookStores,
  workspaceId: string,
  deliveryId: string,
  deliver: Client | ReplaySignaller,
  now: Date,
): Promise<ReplayAccepted> {
  const signal = typeof deliver === 'function' ? deliver : replaySignaller(deliver);
  const delivery = await findDelivery(stores, workspaceId, deliveryId);
  if (delivery.status !== 'dead_lettered') throw notAllowed('Only a dead-lettered delivery can be replayed.');
  const event = await stores.webhooks.events.eventById(delivery.eventId);
  if (!event || !isReplayable(delivery, event)) {
    throw notAllowed('This event has been replayed since; only its latest dead-lettered delivery can be replayed.');
  }
  const endpoint = await activeEndpointOf(stores, workspaceId);
  if (!endpoint) throw notAllowed('The workspace has no active webhook endpoint to replay to.');

  const replay = delivery.replay + 1;
  // The event's transition first, conditional on the run the checks saw: concurrent requests for
  // one event replay once, and only the request that won it takes a slot of the allowance. A
  // request refused anyway never holds a slot, so none is refused for a slot given back later.
  if (!(await stores.webhooks.events.beginReplay(event._id, delivery.replay))) throw notAllowed('This delivery is already being replayed.');
  const slot = await takeReplaySlot(stores, delivery.endpointId, now);
  if (!slot.ok) {
    await stores.webhooks.events.undoReplay(event._id, replay);
    throw retryLater('webhook_replay_cap', 'More than 10 replays for this endpoint in the last hour.', slot.retryAfterSeconds);
  }
  const run: DeliveryRun = { replay, endpointId: endpoint._id };
  try {
    await signal(event._id, run);
  } catch (err) {
    if (isTemporalUnanswered(err)) {
      // Accepted and recorded: the workflow starter signals it once Temporal answers.
      await stores.webhooks.events.recordReplayDue(event._id, replay, run);
      return { event_id: event._id, replay, endpoint_id: endpoint._id, status: 'replaying' };
    }
    await stores.webhooks.events.undoReplay(event._id, replay);
    await releaseReplaySlot(stores, slot);
    if (err instanceof WorkflowNotFoundError) throw notAllowed('The replay window of this event has closed.');
    throw retryLater('dependency_unavailable', 'The delivery scheduler is unavailable; retry shortly.', 5, { cause: err });
  }
  return { event_id: event._id, replay, endpoint_id: endpoint._id, status: 'replaying' };
}

/**
 * The workflow starter's part for replays: signals every replay recorded while Temporal did not
 * answer, each under a lease of `leaseMs`. A workflow gone meanwhile (its replay window closed)
 * puts the event back to dead-lettered, as a refused signal on the request would have.
 */
export async function signalRecordedReplays(stores: WebhookStores, signal: ReplaySignaller, leaseMs: number, limit = 50, now: Date): Promise<void> {
  for (const _id of await stores.webhooks.events.dueReplayEventIds(now, limit)) {
    const claimed = await stores.webhooks.events.leaseDueReplay(_id, now, new Date(now.getTime() + leaseMs));
    if (!claimed?.replayRun) continue;
    const run = claimed.replayRun as DeliveryRun;
    try {
      await signal(_id, run);
      await stores.webhooks.events.replaySignalled(_id, run.replay);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) {
        await stores.webhooks.events.dropDueReplay(_id, run.replay);
        continue;
      }
      await stores.webhooks.events.releaseReplayLease(_id);
      throw err;
    }
  }
}
