import type { PasskeyStores } from '../users/passkeysStore';
import type { UserStores } from '../users/store';
import type { OAuthStores } from './store';

/**
 * Deletes what browser sign-in leaves behind once it can no longer matter (reads already ignore
 * expired records; this only reclaims space, FerretDB 1.x having no TTL indexes). Codes are kept
 * an hour past expiry so a late second use is still recognised as one; rotation records a day
 * past their retry window (the used token's own `usedAt` keeps reuse detection after that).
 * Safe to repeat; meant for the store-maintenance schedule.
 */
export async function purgeExpiredSignInRecords(stores: OAuthStores & UserStores & PasskeyStores, now: Date): Promise<number> {
  const hourAgo = new Date(now.getTime() - 3600_000);
  const dayAgo = new Date(now.getTime() - 24 * 3600_000);
  const [oauthRecords, attemptSlots, sessions, challenges, passkeyChallenges] = await Promise.all([
    stores.oauth.deleteExpiredSignInRecords({ requests: now, codes: hourAgo, rotations: dayAgo }),
    stores.users.deleteExpiredAttemptSlots(now),
    stores.users.deleteExpiredBrowserSessions(now),
    stores.users.deleteExpiredSignInChallenges(now),
    stores.passkeys.deleteExpiredPasskeyChallenges(now),
  ]);
  return oauthRecords + attemptSlots + sessions + challenges + passkeyChallenges;
}
