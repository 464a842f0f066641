import { sha256Hex } from '../crypto/hash';
import { isSessionValue } from './sessions';
import type { UserStores } from './store';

/**
 * Sudo mode (DECISIONS.md "Organization console"): every lasting access (a key, a person, a
 * webhook endpoint and its secret) needs the password typed in this browser within the last 15
 * minutes. Signing in counts as typing it; so does the console's "Confirm your password".
 * `sudoModeActive` is the one check every console path asks.
 */
export const SUDO_WINDOW_MS = 15 * 60_000;

/** Whether a password confirmed at `confirmedAt` still covers a sensitive change at `now`. */
export function sudoActive(confirmedAt: Date | null | undefined, now: Date): boolean {
  if (!confirmedAt) return false;
  const age = now.getTime() - confirmedAt.getTime();
  return age >= 0 && age < SUDO_WINDOW_MS;
}

/** When the session's person last typed their password: the confirmation, else the sign-in. */
async function sessionConfirmedAt(stores: UserStores, sessionValue: unknown): Promise<Date | null> {
  if (!isSessionValue(sessionValue)) return null;
  const session = await stores.users.findBrowserSession(sha256Hex(sessionValue));
  if (!session) return null;
  return session.confirmedAt ?? session.createdAt;
}

/** Whether the browser holding `sessionValue` is in sudo mode at `now`. */
export async function sudoModeActive(stores: UserStores, sessionValue: unknown, now: Date): Promise<boolean> {
  return sudoActive(await sessionConfirmedAt(stores, sessionValue), now);
}

/** Records that the password was typed again in this browser at `now`. */
export async function recordConfirmation(stores: UserStores, sessionValue: string, now: Date): Promise<void> {
  if (isSessionValue(sessionValue)) await stores.users.setSessionConfirmedAt(sha256Hex(sessionValue), now);
}
