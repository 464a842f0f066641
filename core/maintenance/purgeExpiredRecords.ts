import { purgeExpiredAuditEvents, type AuditStores } from '../audit/auditLog';
import { AUDIT_RETENTION_DAYS_DEFAULT } from '../config';
import { purgeExpiredIdempotencyRecords } from '../idempotency/idempotency';
import type { IdempotencyStores } from '../idempotency/store';
import type { TalentStores } from '../talent/store';
import type { WebhookStores } from '../webhooks/store/webhookStore';
import type { JobStores } from '../jobs/store';
import { purgeExpiredDaySlots } from '../jobs/dailyJobCap';
import { purgeExpiredSignInRecords } from '../oauth/expiredSignInRecords';
import { purgeExpiredQuotaEntries } from '../talent/quotas';
import { purgeExpiredSearches } from '../talent/searches';
import { purgeAttemptClaims, purgeExpiredRefreshChains, purgeWebhookHistory } from './purgeRecordsWithoutExpiry';
import type { OAuthStores } from '../oauth/store';
import type { PasskeyStores } from '../users/passkeysStore';
import type { UserStores } from '../users/store';

/**
 * Records that carry their own `expiresAt` and that every read already ignores once expired:
 * stored searches (7 days; each holds up to 10,000 person ids), search quota windows and
 * idempotency records (24 h). Deleting them only reclaims space (TTL indexes are not available
 * on FerretDB 1.x), so it runs on a schedule and is safe to repeat at any time. With them go
 * the records without an expiry of their own (core/maintenance/retentionRules.ts): webhook
 * events and deliveries, attempt claims, refresh-token chains, and past days' job slots; and
 * what people's sign-in leaves behind (core/oauth/expiredSignInRecords.ts); and audit entries
 * older than AUDIT_RETENTION_DAYS.
 */
export interface PurgedCounts {
  searches: number;
  quotaEntries: number;
  idempotencyRecords: number;
  webhookEvents: number;
  webhookDeliveries: number;
  attemptClaims: number;
  refreshTokens: number;
  jobDaySlots: number;
  signInRecords: number;
  auditEvents: number;
}

/** `auditRetentionDays`: AUDIT_RETENTION_DAYS, the one setting that bounds the audit log. */
export async function purgeExpiredRecords(
  stores: AuditStores & IdempotencyStores & TalentStores & OAuthStores & UserStores & PasskeyStores & WebhookStores & JobStores,
  now: Date,
  { auditRetentionDays = AUDIT_RETENTION_DAYS_DEFAULT } = {},
): Promise<PurgedCounts> {
  const [searches, quotaEntries, idempotencyRecords, webhook, attemptClaims, refreshTokens, jobDaySlots, signInRecords, auditEvents] = await Promise.all([
    purgeExpiredSearches(stores, now),
    purgeExpiredQuotaEntries(stores, now),
    purgeExpiredIdempotencyRecords(stores, now),
    purgeWebhookHistory(stores, now),
    purgeAttemptClaims(stores, now),
    purgeExpiredRefreshChains(stores, now),
    purgeExpiredDaySlots(stores, now),
    purgeExpiredSignInRecords(stores, now),
    purgeExpiredAuditEvents(stores, now, auditRetentionDays),
  ]);
  return {
    searches,
    quotaEntries,
    idempotencyRecords,
    webhookEvents: webhook.events,
    webhookDeliveries: webhook.deliveries,
    attemptClaims,
    refreshTokens,
    jobDaySlots,
    signInRecords,
    auditEvents,
  };
}
