import type { OAuthStores } from '../oauth/store';
import type { WebhookStores } from '../webhooks/store/webhookStore';
import { HEALTH_WINDOW_MS } from '../webhooks/webhookHealth';
import { ATTEMPT_CLAIM_RETENTION_MS, EVENT_QUIET_MS, EVENT_RETENTION_MS, chainExpired, eventPurgeable } from './retentionRules';

/**
 * Records that carry no expiry of their own (core/maintenance/retentionRules.ts says how long
 * they live): webhook events with their delivery records, attempt claims, and refresh-token
 * chains. Each run deletes at most BATCH of each kind, so one run stays short; the hourly
 * schedule catches up.
 */
const BATCH = 1000;

/**
 * Events past retention with their delivery records (records first: a crash leaves no orphans),
 * and the webhook health counters of days the overview's window has left (uncounted: a row per
 * workspace and day).
 */
export async function purgeWebhookHistory(stores: WebhookStores, now: Date): Promise<{ events: number; deliveries: number }> {
  const nowMs = now.getTime();
  await stores.webhooks.deliveries.deleteHealthDaysBefore(new Date(nowMs - HEALTH_WINDOW_MS - 24 * 3600_000));
  const candidates = await stores.webhooks.events.eventsOlderThan(new Date(nowMs - EVENT_RETENTION_MS), new Date(nowMs - EVENT_QUIET_MS), BATCH);
  const ids = candidates.filter((e) => eventPurgeable(e, nowMs)).map((e) => e._id);
  if (!ids.length) return { events: 0, deliveries: 0 };
  const deliveries = await stores.webhooks.deliveries.deleteDeliveriesOfEvents(ids);
  const events = await stores.webhooks.events.deleteEvents(ids);
  return { events, deliveries };
}

export async function purgeAttemptClaims(stores: WebhookStores, now: Date): Promise<number> {
  return stores.webhooks.deliveries.deleteAttemptClaimsBefore(new Date(now.getTime() - ATTEMPT_CLAIM_RETENTION_MS));
}

/** Refresh-token chains every token of which has expired. */
export async function purgeExpiredRefreshChains(stores: OAuthStores, now: Date): Promise<number> {
  const nowMs = now.getTime();
  const chainIds = await stores.oauth.chainIdsWithExpiredRefreshTokens(now, BATCH);
  if (!chainIds.length) return 0;
  const tokens = await stores.oauth.refreshTokenExpiriesOf(chainIds);
  const byChain = new Map<string, Array<{ expiresAt: Date }>>();
  for (const t of tokens) byChain.set(t.chainId, [...(byChain.get(t.chainId) ?? []), t]);
  const done = chainIds.filter((c) => chainExpired(byChain.get(c) ?? [], nowMs));
  if (!done.length) return 0;
  // Only tokens already expired: one issued in the meantime keeps its chain alive.
  return stores.oauth.deleteExpiredRefreshTokensOf(done, now);
}
