import { newId } from '../ids';
import { notFound } from '../problems';
import { isDuplicateKeyError } from '../store/connection';
import { afterPosition, decodeCursor, encodeCursor } from './deliveryCursor';
import { WebhookAttemptClaim, WebhookDelivery, WebhookEvent, type DeliveryStatus, type WebhookDeliveryDoc } from './models';

/**
 * Delivery records (DECISIONS.md "Webhook deliveries"): one per attempt. The attempt is
 * claimed before its POST (so a retried activity never sends it twice) and its record is
 * written with the outcome before the workflow moves on. `pending` is part of the vocabulary
 * but a stored record always carries an outcome.
 */
export interface DeliveryView {
  delivery_id: string;
  event_id: string;
  endpoint_id: string;
  job_id: string;
  attempt: number;
  replay: number;
  status: DeliveryStatus;
  response_status: number | null;
  error_code: string | null;
  duration_ms: number | null;
  scheduled_at: string;
  attempted_at: string;
  next_attempt_at: string | null;
}

export function deliveryView(d: WebhookDeliveryDoc): DeliveryView {
  return {
    delivery_id: d._id,
    event_id: d.eventId,
    endpoint_id: d.endpointId,
    job_id: d.jobId,
    attempt: d.attempt,
    replay: d.replay,
    status: d.status as DeliveryStatus,
    response_status: d.responseStatus ?? null,
    error_code: d.errorCode ?? null,
    duration_ms: d.durationMs ?? null,
    scheduled_at: d.scheduledAt.toISOString(),
    attempted_at: d.attemptedAt.toISOString(),
    next_attempt_at: d.nextAttemptAt ? d.nextAttemptAt.toISOString() : null,
  };
}

export interface AttemptKey {
  eventId: string;
  replay: number;
  attempt: number;
}

/**
 * Claims one attempt before its POST: true the first time, false when an earlier run of the
 * activity already began it, in which case the caller must not POST again.
 */
export async function claimAttempt(key: AttemptKey, now: Date): Promise<boolean> {
  try {
    await WebhookAttemptClaim.create({ _id: `${key.eventId}:${key.replay}:${key.attempt}`, claimedAt: now });
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

export async function findAttempt(key: AttemptKey): Promise<WebhookDeliveryDoc | null> {
  return WebhookDelivery.findOne(key).lean<WebhookDeliveryDoc>();
}

export type AttemptRecord = AttemptKey & {
  endpointId: string;
  orgId: string;
  workspaceId: string;
  jobId: string;
  status: Exclude<DeliveryStatus, 'pending'>;
  responseStatus: number | null;
  errorCode: string | null;
  durationMs: number | null;
  scheduledAt: Date;
  attemptedAt: Date;
  nextAttemptAt: Date | null;
};

/**
 * Writes the record of a finished attempt, once: insert-only, so the hot path costs no update
 * (FerretDB updates scan). A second write for the same attempt returns the first.
 */
export async function recordAttempt(record: AttemptRecord): Promise<WebhookDeliveryDoc> {
  try {
    const doc = await WebhookDelivery.create({ _id: newId('dlv'), ...record });
    return doc.toObject() as WebhookDeliveryDoc;
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    const existing = await findAttempt(record);
    if (!existing) throw err;
    return existing;
  }
}

export interface DeliveryFilter {
  endpoint_id?: string;
  event_id?: string;
  /** The job's deliveries: those of its one `job.completed` event. */
  job_id?: string;
  status?: DeliveryStatus;
  limit: number;
  cursor?: string;
}

export async function listDeliveries(workspaceId: string, f: DeliveryFilter): Promise<{ data: DeliveryView[]; next_cursor: string | null }> {
  const after = decodeCursor('webhook_deliveries', f.cursor);
  const filter: Record<string, unknown> = { workspaceId, ...afterPosition(after) };
  if (f.endpoint_id) filter.endpointId = f.endpoint_id;
  if (f.event_id) filter.eventId = f.event_id;
  if (f.job_id) {
    // Through the event (one per job, indexed by job): the attempts' own index is by event.
    const event = await WebhookEvent.findOne({ jobId: f.job_id, workspaceId }, { _id: 1 }).lean<{ _id: string }>();
    if (!event || (f.event_id && f.event_id !== event._id)) return { data: [], next_cursor: null };
    filter.eventId = event._id;
  }
  if (f.status) filter.status = f.status;
  const docs = await WebhookDelivery.find(filter)
    .sort({ createdAt: -1, _id: -1 })
    .limit(f.limit + 1)
    .lean<WebhookDeliveryDoc[]>();
  const page = docs.slice(0, f.limit);
  const last = page[page.length - 1];
  return {
    data: page.map(deliveryView),
    next_cursor: docs.length > f.limit && last ? encodeCursor('webhook_deliveries', { createdAt: last.createdAt, id: last._id }) : null,
  };
}

export async function findDelivery(workspaceId: string, deliveryId: string): Promise<WebhookDeliveryDoc> {
  const doc = await WebhookDelivery.findOne({ _id: deliveryId, workspaceId }).lean<WebhookDeliveryDoc>();
  if (!doc) throw notFound('webhook delivery');
  return doc;
}
