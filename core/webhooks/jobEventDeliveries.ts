import { deliveryView, type DeliveryView } from './deliveryView';
import type { WebhookStores } from './store/webhookStore';

/**
 * A job's `job.completed` event as its page shows it: the event of this organization (one per
 * job, found by its unique job id) and every attempt of every run, in order (run, then attempt).
 * A run has at most nine attempts and replays are capped per hour, so the list stays short;
 * `MAX_ATTEMPTS_SHOWN` bounds it all the same.
 */
export const MAX_ATTEMPTS_SHOWN = 500;

export interface JobEventDeliveries {
  eventId: string;
  status: string;
  endpointId: string | null;
  createdAt: Date;
  attempts: DeliveryView[];
}

/** Null before the job finished (no event yet), and for a job of another organization. */
export async function jobEventDeliveries(stores: WebhookStores, orgId: string, jobId: string): Promise<JobEventDeliveries | null> {
  const event = await stores.webhooks.events.eventInOrg(orgId, { jobId });
  if (!event) return null;
  const attempts = (await stores.webhooks.deliveries.deliveriesOfEvent(event._id))
    .sort((a, b) => a.replay - b.replay || a.attempt - b.attempt)
    .slice(0, MAX_ATTEMPTS_SHOWN);
  return { eventId: event._id, status: event.status, endpointId: event.endpointId ?? null, createdAt: event.createdAt, attempts: attempts.map(deliveryView) };
}
