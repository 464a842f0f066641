import { deliveryView, type DeliveryView } from './webhookDeliveries';
import { WebhookDelivery, WebhookEvent, type WebhookDeliveryDoc } from './models';

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
export async function jobEventDeliveries(orgId: string, jobId: string): Promise<JobEventDeliveries | null> {
  const event = await WebhookEvent.findOne({ jobId, orgId }).lean();
  if (!event) return null;
  const attempts = await WebhookDelivery.find({ eventId: event._id }).sort({ replay: 1, attempt: 1 }).limit(MAX_ATTEMPTS_SHOWN).lean<WebhookDeliveryDoc[]>();
  return { eventId: event._id, status: event.status, endpointId: event.endpointId ?? null, createdAt: event.createdAt, attempts: attempts.map(deliveryView) };
}
