import { sha256Hex } from '../crypto/hash';
import { releaseSlot, takeSlot } from './attemptSlots';
import { hashPassword, verifyPassword } from './passwords';
import { findUserByEmail, normalizeEmail, type UserRecord } from './users';
import type { UserStores } from './store';

/**
 * Password sign-in with failure limits per account and per client address, shared by every
 * replica (attemptSlots). Each attempt takes a slot of both before the password is checked; a
 * successful one gives them back, a failed one keeps them for FAILURE_WINDOW_MS. So after
 * ACCOUNT_FAILURES failures an account is locked until the oldest failure is 15 minutes old,
 * and an address trying many accounts is stopped after ADDRESS_FAILURES. Every refusal reads
 * the same whether the email exists or not, and an unknown email costs the same scrypt work.
 */
export const ACCOUNT_FAILURES = 5;
export const ADDRESS_FAILURES = 20;
export const FAILURE_WINDOW_MS = 15 * 60_000;

export const WRONG_CREDENTIALS = 'The email or password is not correct.';
export const TOO_MANY_ATTEMPTS = 'Too many sign-in attempts. Wait a few minutes and try again.';

export type SignInResult = { ok: true; user: UserRecord } | { ok: false; message: string; retryAfterSeconds?: number };

/**
 * A hash to verify against when there is no account, so timing does not tell: same cost
 * (PASSWORD_SCRYPT_LOG2N) as real ones. Computed on first need, once per app: the composition
 * root (api/app.ts createApp) builds it and passes it to the pages that sign people in.
 */
export class DecoyPasswordHash {
  private hash: Promise<string> | undefined;

  constructor(private readonly log2N: number) {}

  value(): Promise<string> {
    this.hash ??= hashPassword('decoy password that matches nothing', this.log2N);
    return this.hash;
  }
}

export async function signIn(stores: UserStores, decoy: DecoyPasswordHash, email: string, password: string, address: string, now: Date): Promise<SignInResult> {
  if (typeof email !== 'string' || typeof password !== 'string' || email.length > 320 || password.length > 1024)
    return { ok: false, message: WRONG_CREDENTIALS };
  const accountScope = `signin:acct:${sha256Hex(normalizeEmail(email))}`;
  const addressScope = `signin:addr:${address}`;
  const byAddress = await takeSlot(stores, addressScope, ADDRESS_FAILURES, FAILURE_WINDOW_MS, now);
  if (!byAddress.ok) return { ok: false, message: TOO_MANY_ATTEMPTS, retryAfterSeconds: byAddress.retryAfterSeconds };
  const byAccount = await takeSlot(stores, accountScope, ACCOUNT_FAILURES, FAILURE_WINDOW_MS, now);
  if (!byAccount.ok) {
    await releaseSlot(stores, byAddress.slotId);
    return { ok: false, message: TOO_MANY_ATTEMPTS, retryAfterSeconds: byAccount.retryAfterSeconds };
  }
  const user = await findUserByEmail(stores, email);
  const usable = user && user.passwordHash && !user.disabledAt;
  const matches = await verifyPassword(password, usable ? user.passwordHash! : await decoy.value());
  if (!usable || !matches) return { ok: false, message: WRONG_CREDENTIALS };
  await releaseSlot(stores, byAccount.slotId);
  await releaseSlot(stores, byAddress.slotId);
  return { ok: true, user };
}
