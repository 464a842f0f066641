import { sha256Hex } from '../crypto/hash';
import { deleteSignInChallenge, findSignInChallenge, insertSignInChallenge } from './store';
import { isSessionValue, newSessionValue } from './sessions';
import { findActiveUser, type UserRecord } from './users';

/**
 * The step between the password and the session for a person with a second factor: the password
 * was right, the browser holds a fresh cookie value (so its forms keep a CSRF token and no
 * earlier value carries over), and the store keeps only that value's SHA-256 with the person.
 * No signed-in page reads it; the session is made when the second factor is given, within
 * CHALLENGE_TTL_MS.
 */
export const CHALLENGE_TTL_MS = 10 * 60_000;

export async function startSignInChallenge(userId: string, now: Date): Promise<string> {
  const value = newSessionValue();
  await insertSignInChallenge({ _id: sha256Hex(value), userId, expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS) });
  return value;
}

/** The active person whose password this browser gave, while the challenge stands; null otherwise. */
export async function challengedUser(value: unknown, now: Date): Promise<UserRecord | null> {
  if (!isSessionValue(value)) return null;
  const challenge = await findSignInChallenge(sha256Hex(value));
  if (!challenge || challenge.expiresAt <= now) return null;
  return findActiveUser(challenge.userId);
}

/** Ends the challenge; true for the one call that ended it. */
export async function endSignInChallenge(value: string): Promise<boolean> {
  return isSessionValue(value) && deleteSignInChallenge(sha256Hex(value));
}
