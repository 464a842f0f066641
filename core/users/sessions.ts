import { constantTimeEqual, hmacSha256, sha256Hex } from '../crypto/hash';
import type { PurposeKeys } from '../crypto/purposeKeys';
import { randomBase62 } from '../ids';
import { findActiveUser, type UserRecord } from './users';
import type { UserStores } from './store';

/**
 * Browser sessions of the sign-in pages. The cookie holds a random value; the store keeps only
 * its SHA-256, with the user, once the person has signed in. A browser that has not signed in
 * still gets a value, so every form (sign in and set password too) carries a CSRF token derived
 * from it: HMAC-SHA-256 under the `csrf` purpose key, compared in constant time. Signing in
 * replaces the value (no session fixation).
 */
export const SESSION_TTL_MS = 8 * 3600_000;
const SESSION_VALUE = /^[0-9A-Za-z]{43}$/;

export function newSessionValue(): string {
  return randomBase62(43);
}

export function isSessionValue(value: unknown): value is string {
  return typeof value === 'string' && SESSION_VALUE.test(value);
}

export async function startSession(stores: UserStores, userId: string, now: Date): Promise<{ value: string; expiresAt: Date }> {
  const value = newSessionValue();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await stores.users.insertBrowserSession({ _id: sha256Hex(value), userId, createdAt: now, expiresAt });
  await stores.users.recordSignInTime(userId, now);
  return { value, expiresAt };
}

/** The signed-in, still active user of a session value; null otherwise (read on every request). */
export async function sessionUser(stores: UserStores, value: unknown, now: Date): Promise<UserRecord | null> {
  if (!isSessionValue(value)) return null;
  const session = await stores.users.findBrowserSession(sha256Hex(value));
  if (!session || session.expiresAt <= now) return null;
  return findActiveUser(stores, session.userId);
}

export async function endSession(stores: UserStores, value: unknown): Promise<void> {
  if (isSessionValue(value)) await stores.users.deleteBrowserSession(sha256Hex(value));
}

export function csrfTokenFor(sessionValue: string, keys: PurposeKeys): string {
  return hmacSha256(keys.key('csrf'), sessionValue).toString('base64url');
}

export function csrfMatches(sessionValue: unknown, presented: unknown, keys: PurposeKeys): boolean {
  if (!isSessionValue(sessionValue) || typeof presented !== 'string' || presented.length > 100) return false;
  return constantTimeEqual(csrfTokenFor(sessionValue, keys), presented);
}
