import { chainIdsWithExpiredRefreshTokens, deleteExpiredRefreshTokensOf, refreshTokenExpiriesOf } from '../oauth/store';
import { WebhookAttemptClaim, WebhookDelivery, WebhookEvent } from '../webhooks/models';
import { ATTEMPT_CLAIM_RETENTION_MS, EVENT_QUIET_MS, EVENT_RETENTION_MS, chainExpired, eventPurgeable } from './retentionRules';

/**
 * Records that carry no expiry of their own (core/maintenance/retentionRules.ts says how long
 * they live): webhook events with their delivery records, attempt claims, and refresh-token
 * chains. Each run deletes at most BATCH of each kind, so one run stays short; the hourly
 * schedule catches up.
 */
const BATCH = 1000;

/** Events past retention with their delivery records (records first: a crash leaves no orphans). */
export async function purgeWebhookHistory(now = new Date()): Promise<{ events: number; deliveries: number }> {
  const nowMs = now.getTime();
  const candidates = await WebhookEvent.find(
    { createdAt: { $lte: new Date(nowMs - EVENT_RETENTION_MS) }, updatedAt: { $lte: new Date(nowMs - EVENT_QUIET_MS) } },
    { createdAt: 1, updatedAt: 1 },
  )
    .limit(BATCH)
    .lean();
  const ids = candidates.filter((e) => eventPurgeable(e, nowMs)).map((e) => e._id);
  if (!ids.length) return { events: 0, deliveries: 0 };
  const deliveries = (await WebhookDelivery.deleteMany({ eventId: { $in: ids } })).deletedCount ?? 0;
  const events = (await WebhookEvent.deleteMany({ _id: { $in: ids } })).deletedCount ?? 0;
  return { events, deliveries };
}

export async function purgeAttemptClaims(now = new Date()): Promise<number> {
  return (await WebhookAttemptClaim.deleteMany({ claimedAt: { $lte: new Date(now.getTime() - ATTEMPT_CLAIM_RETENTION_MS) } })).deletedCount ?? 0;
}

/** Refresh-token chains every token of which has expired. */
export async function purgeExpiredRefreshChains(now = new Date()): Promise<number> {
  const nowMs = now.getTime();
  const chainIds = await chainIdsWithExpiredRefreshTokens(now, BATCH);
  if (!chainIds.length) return 0;
  const tokens = await refreshTokenExpiriesOf(chainIds);
  const byChain = new Map<string, Array<{ expiresAt: Date }>>();
  for (const t of tokens) byChain.set(t.chainId, [...(byChain.get(t.chainId) ?? []), t]);
  const done = chainIds.filter((c) => chainExpired(byChain.get(c) ?? [], nowMs));
  if (!done.length) return 0;
  // Only tokens already expired: one issued in the meantime keeps its chain alive.
  return deleteExpiredRefreshTokensOf(done, now);
}
