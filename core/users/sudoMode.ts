import { sha256Hex } from '../crypto/hash';
import { findBrowserSession, setSessionConfirmedAt } from './store';
import { isSessionValue } from './sessions';

/**
 * Sudo mode (DECISIONS.md "Organization console"): creating or rotating a key, changing a role
 * or permissions and inviting an admin need the password typed in this browser within the last
 * 15 minutes. Signing in counts as typing it; so does the console's "Confirm your password".
 */
export const SUDO_WINDOW_MS = 15 * 60_000;

/** Whether a password confirmed at `confirmedAt` still covers a sensitive change at `now`. */
export function sudoActive(confirmedAt: Date | null | undefined, now: Date): boolean {
  if (!confirmedAt) return false;
  const age = now.getTime() - confirmedAt.getTime();
  return age >= 0 && age < SUDO_WINDOW_MS;
}

/** When the session's person last typed their password: the confirmation, else the sign-in. */
export async function sessionConfirmedAt(sessionValue: unknown): Promise<Date | null> {
  if (!isSessionValue(sessionValue)) return null;
  const session = await findBrowserSession(sha256Hex(sessionValue));
  if (!session) return null;
  return session.confirmedAt ?? session.createdAt;
}

/** Records that the password was typed again in this browser now. */
export async function recordConfirmation(sessionValue: string, now = new Date()): Promise<void> {
  if (isSessionValue(sessionValue)) await setSessionConfirmedAt(sha256Hex(sessionValue), now);
}
