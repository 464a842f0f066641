import { authenticator } from 'otplib';
import { sha256Hex } from '../crypto/hash';
import { randomBase62 } from '../ids';

/**
 * The rules of an authenticator app (TOTP, RFC 6238, through otplib's authenticator: SHA-1, 6 digits, 30-second
 * steps) and of recovery codes. A code is accepted in its own step and one step either side (a
 * phone's clock a little off), and only in a step later than the last one accepted for the
 * person, so a code works once. Recovery codes: ten, single-use, stored as SHA-256 hashes.
 */
export const TOTP_PERIOD_SECONDS = 30;
/** One step either side of now. */
const TOLERANCE_STEPS = 1;
export const RECOVERY_CODE_COUNT = 10;
const CODE = /^[0-9]{6}$/;
const RECOVERY_CODE = /^[0-9a-z]{5}-[0-9a-z]{5}$/;

export function newTotpSecret(): string {
  return authenticator.generateSecret();
}

/** The `otpauth://` URI an authenticator app reads from the QR code. */
export function totpUri(secret: string, account: string, issuer = 'Talent platform'): string {
  return authenticator.keyuri(account, issuer, secret);
}

export type TotpCheck = { ok: true; timeStep: number } | { ok: false };

/** Whether `code` is the person's code at `now`, in a step after `lastTimeStep` (the step of the last code accepted). */
export async function checkTotpCode(secret: string, code: unknown, now: Date, lastTimeStep: number | null): Promise<TotpCheck> {
  const token = typeof code === 'string' ? code.replace(/\s+/g, '') : '';
  if (!CODE.test(token)) return { ok: false };
  const delta = authenticator.clone({ epoch: now.getTime(), step: TOTP_PERIOD_SECONDS, window: TOLERANCE_STEPS }).checkDelta(token, secret);
  if (delta === null) return { ok: false };
  const timeStep = Math.floor(now.getTime() / (TOTP_PERIOD_SECONDS * 1000)) + delta;
  // A step at or before the last one accepted: that code (or an older one) was used already.
  return lastTimeStep !== null && timeStep <= lastTimeStep ? { ok: false } : { ok: true, timeStep };
}

/** Ten new recovery codes (shown once) and their hashes (stored). */
export function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const raw = randomBase62(10).toLowerCase();
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
  return { codes, hashes: codes.map(recoveryCodeHash) };
}

/** The stored hash of a typed recovery code (spaces and case ignored), or null for anything that is not one. */
export function recoveryCodeHash(typed: unknown): string | null;
export function recoveryCodeHash(typed: string): string;
export function recoveryCodeHash(typed: unknown): string | null {
  const code = typeof typed === 'string' ? typed.trim().toLowerCase() : '';
  return RECOVERY_CODE.test(code) ? sha256Hex(`recovery:${code}`) : null;
}
