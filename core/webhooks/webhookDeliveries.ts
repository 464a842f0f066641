import { notFound } from '../problems';
import type { CursorKey } from '../pageCursor';
import { comesAfter, decodeDeliveryCursor, encodeDeliveryCursor, listOrder, type DeliveryPosition } from './deliveryCursor';
import { advance, nextBelow, nextWindow, walkFrom } from './deliveryNumbering';
import type { DeliveryStatus } from './deliveryStatus';
import { deliveryView, type DeliveryView } from './deliveryView';
import type { DeliveryFilterFields } from './store/deliveryStore';
import type { WebhookStores } from './store/webhookStore';
import type { AttemptKey, DeliveryRecord } from './store/records';
import { countAttemptHealth } from './webhookHealth';

/**
 * Delivery records (DECISIONS.md "Webhook deliveries"): one per attempt. The attempt is
 * claimed before its POST (so a retried activity never sends it twice) and its record is
 * written with the outcome before the workflow moves on. `pending` is part of the vocabulary
 * but a stored record always carries an outcome.
 */
export { deliveryView, type DeliveryView };
export type { AttemptKey };

export type AttemptRecord = AttemptKey &
  Pick<
    DeliveryRecord,
    'endpointId' | 'orgId' | 'workspaceId' | 'jobId' | 'responseStatus' | 'errorCode' | 'durationMs' | 'scheduledAt' | 'attemptedAt' | 'nextAttemptAt'
  > & {
    status: Exclude<DeliveryStatus, 'pending'>;
  };

/**
 * Writes the record of a finished attempt, once, numbered in its workspace (deliveryNumbering.ts),
 * and counts it for the workspace's health figures. A second write for the same attempt returns
 * the first and counts nothing.
 */
export async function recordAttempt(stores: WebhookStores, record: AttemptRecord): Promise<DeliveryRecord> {
  const { record: stored, inserted } = await stores.webhooks.deliveries.insertNumberedDelivery(record);
  if (inserted) await countAttemptHealth(stores, stored);
  return stored;
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

type DeliveryPage = { data: DeliveryView[]; next_cursor: string | null };

function positionAfter(record: DeliveryRecord): DeliveryPosition {
  return typeof record.seq === 'number' ? { below: record.seq - 1 } : { before: { createdAt: record.createdAt, id: record._id } };
}

/** The page of `rows` (in list order, one more than `limit` when another page follows). */
function pageOf(cursorKey: CursorKey, rows: readonly DeliveryRecord[], limit: number, filters: string): DeliveryPage {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { data: page.map(deliveryView), next_cursor: rows.length > limit && last ? encodeDeliveryCursor(cursorKey, filters, positionAfter(last)) : null };
}

/**
 * One page of the workspace's attempts, newest first (highest number first, then the records
 * from before the numbering). One event's attempts (nine per run) are read by the event; the
 * workspace's are read by number, down from the head, in windows: a filter that matches rarely
 * answers a shorter page with a cursor after `MAX_SCANNED_PER_PAGE` numbers, so no page costs
 * more than a few reads by id however long the history.
 */
export async function listDeliveries(stores: WebhookStores, cursorKey: CursorKey, workspaceId: string, f: DeliveryFilter): Promise<DeliveryPage> {
  const filters = [workspaceId, f.endpoint_id ?? '', f.status ?? '', f.event_id ?? '', f.job_id ?? ''].join(':');
  const pos = decodeDeliveryCursor(cursorKey, filters, f.cursor);
  // A stored record always carries an outcome: no walk through the history can find a pending one.
  if (f.status === 'pending') return { data: [], next_cursor: null };
  const fields: DeliveryFilterFields = { endpointId: f.endpoint_id, status: f.status };
  let eventId = f.event_id;
  if (f.job_id) {
    // Through the event (one per job, indexed by job): the attempts' own index is by event.
    const id = await stores.webhooks.events.eventIdOfJobIn(workspaceId, f.job_id);
    if (!id || (eventId && eventId !== id)) return { data: [], next_cursor: null };
    eventId = id;
  }
  if (eventId) {
    // All of one workspace: another workspace's event is dropped whole.
    const rows = (await stores.webhooks.deliveries.deliveriesOfEvent(eventId))
      .filter((d) => d.workspaceId === workspaceId && (!f.endpoint_id || d.endpointId === f.endpoint_id) && (!f.status || d.status === f.status))
      .filter((d) => comesAfter(d, pos))
      .sort(listOrder);
    return pageOf(cursorKey, rows, f.limit, filters);
  }

  const head = await stores.webhooks.deliveries.deliveryHead(workspaceId);
  const rows: DeliveryRecord[] = [];
  if (!pos || 'below' in pos) {
    let walk = walkFrom(pos ? Math.min(pos.below, head.seq) : head.seq);
    for (let w = nextWindow(walk, f.limit + 1); w.length > 0 && rows.length <= f.limit; w = nextWindow(walk, f.limit + 1 - rows.length)) {
      rows.push(...(await stores.webhooks.deliveries.numberedDeliveries(workspaceId, w, fields)));
      walk = advance(walk, w);
    }
    const below = nextBelow(
      rows.map((r) => r.seq!),
      f.limit,
      walk,
    );
    if (rows.length > f.limit) return pageOf(cursorKey, rows, f.limit, filters);
    // The page's budget of numbers ran out before the numbered records did: go on from there.
    if (below > 0) return { data: rows.map(deliveryView), next_cursor: encodeDeliveryCursor(cursorKey, filters, { below }) };
    if (!head.legacy) return { data: rows.map(deliveryView), next_cursor: null };
  }
  // Records from before the numbering, after every numbered one.
  const after = pos && 'before' in pos ? pos.before : undefined;
  rows.push(...(await stores.webhooks.deliveries.unnumberedDeliveries(workspaceId, fields, f.limit + 1 - rows.length, after)));
  return pageOf(cursorKey, rows, f.limit, filters);
}

export async function findDelivery(stores: WebhookStores, workspaceId: string, deliveryId: string): Promise<DeliveryRecord> {
  const doc = await stores.webhooks.deliveries.deliveryInWorkspace(workspaceId, deliveryId);
  if (!doc) throw notFound('webhook delivery');
  return doc;
}
