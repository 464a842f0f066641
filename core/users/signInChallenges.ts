import { sha256Hex } from '../crypto/hash';
import { isSessionValue, newSessionValue } from './sessions';
import { findActiveUser, type UserRecord } from './users';
import type { UserStores } from './store';

/**
 * The step between the password and the session for a person with a second factor: the password
 * was right, the browser holds a fresh cookie value (so its forms keep a CSRF token and no
 * earlier value carries over), and the store keeps only that value's SHA-256 with the person.
 * No signed-in page reads it; the session is made when the second factor is given, within
 * CHALLENGE_TTL_MS.
 */
export const CHALLENGE_TTL_MS = 10 * 60_000;

export async function startSignInChallenge(stores: UserStores, userId: string, now: Date): Promise<string> {
  const value = newSessionValue();
  await stores.users.insertSignInChallenge({ _id: sha256Hex(value), userId, expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS) });
  return value;
}

/** The active person whose password this browser gave, while the challenge stands; null otherwise. */
export async function challengedUser(stores: UserStores, value: unknown, now: Date): Promise<UserRecord | null> {
  if (!isSessionValue(value)) return null;
  const challenge = await stores.users.findSignInChallenge(sha256Hex(value));
  if (!challenge || challenge.expiresAt <= now) return null;
  return findActiveUser(stores, challenge.userId);
}

/** Ends the challenge; true for the one call that ended it. */
export async function endSignInChallenge(stores: UserStores, value: string): Promise<boolean> {
  return isSessionValue(value) && stores.users.deleteSignInChallenge(sha256Hex(value));
}
