import { deliveryView, type DeliveryView } from './deliveryView';
import { advance, nextWindow, walkFrom } from './deliveryNumbering';
import type { DeliveryStatus } from './deliveryStatus';
import { HOUR_MS, type HealthCounts } from './store/deliveryStore';
import type { WebhookStores } from './store/webhookStore';
import type { DeliveryRecord } from './store/records';

/**
 * How a workspace's webhooks are doing, as the console's overview shows it: the last attempt's
 * outcome, the failed attempts and the dead-lettered runs of the last 7 days. The counts are
 * kept as attempts are recorded, per workspace and UTC hour (a row per day), so the overview
 * reads eight counter rows by id instead of counting attempts, and the last attempt is
 * read by its number: no figure reads more as the history grows.
 */
export const HEALTH_WINDOW_MS = 7 * 24 * 3600_000;

export interface WebhookHealth {
  lastAttempt: DeliveryView | null;
  /** Attempts recorded `failed` (not the ninth of a run) in the window, counted to the hour. */
  failedAttempts: number;
  /** Runs that ended dead-lettered in the window, counted to the hour. */
  deadLetters: number;
}

/** What one recorded attempt adds to its hour's counters. */
export function healthCountsOfAttempt(status: DeliveryStatus): Partial<HealthCounts> {
  if (status === 'failed') return { failed: 1 };
  if (status === 'dead_lettered') return { deadLettered: 1 };
  return {};
}

/** The starts of the UTC hours the window ending at `now` touches, oldest first (the first one counts whole). */
export function healthHours(now: Date): number[] {
  const first = Math.floor((now.getTime() - HEALTH_WINDOW_MS) / HOUR_MS) * HOUR_MS;
  const last = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const hours: number[] = [];
  for (let h = first; h <= last; h += HOUR_MS) hours.push(h);
  return hours;
}

/** Counts a newly recorded attempt in its hour (a write lost to a crash between the two is one count short). */
export async function countAttemptHealth(stores: WebhookStores, record: Pick<DeliveryRecord, 'workspaceId' | 'status' | 'attemptedAt'>): Promise<void> {
  const counts = healthCountsOfAttempt(record.status);
  if (Object.keys(counts).length === 0) return;
  await stores.webhooks.deliveries.addHealthCounts(record.workspaceId, Math.floor(record.attemptedAt.getTime() / HOUR_MS) * HOUR_MS, counts);
}

/** The workspace's latest attempt: the highest number present (one read when it is the head), else the latest from before the numbering. */
export async function lastAttemptOf(stores: WebhookStores, workspaceId: string): Promise<DeliveryRecord | null> {
  const head = await stores.webhooks.deliveries.deliveryHead(workspaceId);
  let walk = walkFrom(head.seq);
  for (let window = nextWindow(walk, 1); window.length; window = nextWindow(walk, 1)) {
    const [found] = await stores.webhooks.deliveries.numberedDeliveries(workspaceId, window);
    if (found) return found;
    walk = advance(walk, window);
  }
  if (!head.legacy) return null;
  const [legacy] = await stores.webhooks.deliveries.unnumberedDeliveries(workspaceId, {}, 1);
  return legacy ?? null;
}

export async function webhookHealthOf(stores: WebhookStores, workspaceId: string, now: Date): Promise<WebhookHealth> {
  const [last, counts] = await Promise.all([lastAttemptOf(stores, workspaceId), stores.webhooks.deliveries.healthCountsOf(workspaceId, healthHours(now))]);
  return { lastAttempt: last ? deliveryView(last) : null, failedAttempts: counts.failed, deadLetters: counts.deadLettered };
}
