import { purgeExpiredIdempotencyRecords } from '../idempotency/idempotency';
import { purgeExpiredQuotaEntries } from '../talent/quotas';
import { purgeExpiredSearches } from '../talent/searches';

/**
 * Records that carry their own `expiresAt` and that every read already ignores once expired:
 * stored searches (7 days; each holds up to 10,000 person ids), search quota windows and
 * idempotency records (24 h). Deleting them only reclaims space (TTL indexes are not available
 * on FerretDB 1.x), so it runs on a schedule and is safe to repeat at any time.
 */
export interface PurgedCounts {
  searches: number;
  quotaEntries: number;
  idempotencyRecords: number;
}

export async function purgeExpiredRecords(now = new Date()): Promise<PurgedCounts> {
  const [searches, quotaEntries, idempotencyRecords] = await Promise.all([
    purgeExpiredSearches(now),
    purgeExpiredQuotaEntries(now),
    purgeExpiredIdempotencyRecords(now),
  ]);
  return { searches, quotaEntries, idempotencyRecords };
}
