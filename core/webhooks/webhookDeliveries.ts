import { newId } from '../ids';
import { notFound } from '../problems';
import { isDuplicateKeyError } from '../store/connection';
import { afterPosition, decodeCursor, encodeCursor } from './deliveryCursor';
import { WebhookDelivery, type DeliveryStatus, type WebhookDeliveryDoc } from './models';

/**
 * Delivery records (DECISIONS.md "Webhook deliveries"): one per attempt, written before the
 * POST (`pending`) and completed with its outcome before the workflow moves on.
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

export type Claim = { fresh: true; record: WebhookDeliveryDoc } | { fresh: false; record: WebhookDeliveryDoc };

/**
 * Claims the record of one attempt. `fresh: false` means this attempt was already begun by an
 * earlier run of the activity: the caller must not POST again for it.
 */
export async function claimAttempt(
  key: AttemptKey,
  fields: { endpointId: string; orgId: string; workspaceId: string; jobId: string; scheduledAt: Date; attemptedAt: Date },
): Promise<Claim> {
  try {
    const doc = await WebhookDelivery.create({ _id: newId('dlv'), ...key, ...fields, status: 'pending' });
    return { fresh: true, record: doc.toObject() as WebhookDeliveryDoc };
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    const existing = await WebhookDelivery.findOne(key).lean<WebhookDeliveryDoc>();
    if (!existing) throw err;
    return { fresh: false, record: existing };
  }
}

export async function completeAttempt(
  deliveryId: string,
  outcome: { status: Exclude<DeliveryStatus, 'pending'>; responseStatus: number | null; errorCode: string | null; durationMs: number | null; nextAttemptAt: Date | null },
): Promise<WebhookDeliveryDoc> {
  const doc = await WebhookDelivery.findOneAndUpdate({ _id: deliveryId }, { $set: outcome }, { returnDocument: 'after' }).lean<WebhookDeliveryDoc>();
  if (!doc) throw new Error(`delivery ${deliveryId} vanished`);
  return doc;
}

export interface DeliveryFilter {
  endpoint_id?: string;
  event_id?: string;
  status?: DeliveryStatus;
  limit: number;
  cursor?: string;
}

export async function listDeliveries(workspaceId: string, f: DeliveryFilter): Promise<{ data: DeliveryView[]; next_cursor: string | null }> {
  const after = decodeCursor(f.cursor);
  const filter: Record<string, unknown> = { workspaceId, ...afterPosition(after) };
  if (f.endpoint_id) filter.endpointId = f.endpoint_id;
  if (f.event_id) filter.eventId = f.event_id;
  if (f.status) filter.status = f.status;
  const docs = await WebhookDelivery.find(filter).sort({ createdAt: -1, _id: -1 }).limit(f.limit + 1).lean<WebhookDeliveryDoc[]>();
  const page = docs.slice(0, f.limit);
  const last = page[page.length - 1];
  return {
    data: page.map(deliveryView),
    next_cursor: docs.length > f.limit && last ? encodeCursor({ createdAt: last.createdAt, id: last._id }) : null,
  };
}

export async function findDelivery(workspaceId: string, deliveryId: string): Promise<WebhookDeliveryDoc> {
  const doc = await WebhookDelivery.findOne({ _id: deliveryId, workspaceId }).lean<WebhookDeliveryDoc>();
  if (!doc) throw notFound('webhook delivery');
  return doc;
}
