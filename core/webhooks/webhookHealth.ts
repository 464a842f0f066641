import { deliveryView, type DeliveryView } from './webhookDeliveries';
import { WebhookDelivery, WebhookEvent, type WebhookDeliveryDoc } from './models';

/**
 * How a workspace's webhooks are doing, as the console's overview shows it: the last attempt's
 * outcome, the failed attempts and the dead letters of the last 7 days. Each figure is one read
 * bounded by `COUNT_CAP` rows, so a workspace with a flood of failures costs the same as one
 * with a few: beyond the cap the figure is "at least", which is all a glance needs.
 */
export const HEALTH_WINDOW_MS = 7 * 24 * 3600_000;
export const COUNT_CAP = 1000;

export interface BoundedCount {
  count: number;
  /** True when there are more than `count` (the read stopped at the cap). */
  more: boolean;
}

export interface WebhookHealth {
  lastAttempt: DeliveryView | null;
  failedAttempts: BoundedCount;
  deadLetters: BoundedCount;
}

function bounded(rows: readonly unknown[]): BoundedCount {
  return rows.length > COUNT_CAP ? { count: COUNT_CAP, more: true } : { count: rows.length, more: false };
}

export async function webhookHealthOf(orgId: string, workspaceId: string, now = new Date()): Promise<WebhookHealth> {
  const since = new Date(now.getTime() - HEALTH_WINDOW_MS);
  const [last, failed, dead] = await Promise.all([
    WebhookDelivery.find({ workspaceId }).sort({ createdAt: -1, _id: -1 }).limit(1).lean<WebhookDeliveryDoc[]>(),
    WebhookDelivery.find({ workspaceId, status: 'failed', createdAt: { $gte: since } }, { _id: 1 })
      .sort({ createdAt: -1, _id: -1 })
      .limit(COUNT_CAP + 1)
      .lean(),
    WebhookEvent.find({ status: 'dead_lettered', orgId, workspaceId, deadLetteredAt: { $gte: since } }, { _id: 1 })
      .limit(COUNT_CAP + 1)
      .lean(),
  ]);
  return { lastAttempt: last[0] ? deliveryView(last[0]) : null, failedAttempts: bounded(failed), deadLetters: bounded(dead) };
}
