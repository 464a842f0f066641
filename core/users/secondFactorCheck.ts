import type { PurposeKeys } from '../crypto/purposeKeys';
import { releaseSlot, takeSlot } from './attemptSlots';
import { openTotpSecret } from './authenticatorApp';
import { checkTotpCode, recoveryCodeHash } from './secondFactor';
import { ACCOUNT_FAILURES, ADDRESS_FAILURES, FAILURE_WINDOW_MS, TOO_MANY_ATTEMPTS } from './signIn';
import type { UserStores } from './store';

/**
 * Checks a second factor typed by a person (after the password at sign-in, or for sudo mode): a
 * code of their authenticator app, used once, or one of their recovery codes, which is then
 * used up. Wrong answers are limited like passwords (signIn.ts): each attempt takes a slot per
 * account and per client address, a right one gives them back.
 */
export type SecondFactorAnswer = { kind: 'code'; value: unknown } | { kind: 'recovery_code'; value: unknown };

export type SecondFactorResult = { ok: true; usedRecoveryCode: boolean } | { ok: false; message: string; retryAfterSeconds?: number };

export const WRONG_CODE = 'That code is not correct.';

export async function checkSecondFactor(
  stores: UserStores,
  keys: PurposeKeys,
  userId: string,
  answer: SecondFactorAnswer,
  address: string,
  now: Date,
): Promise<SecondFactorResult> {
  const result = await limitedAttempt(stores, userId, address, now, () => answerIsRight(stores, keys, userId, answer, now), WRONG_CODE);
  return result.ok ? { ok: true, usedRecoveryCode: answer.kind === 'recovery_code' } : result;
}

/**
 * Runs one check of a factor of `userId` (a code, or a passkey for sudo mode) within the limits
 * of wrong answers: a slot per client address and per account, given back when `isRight` is.
 */
export async function limitedAttempt(
  stores: UserStores,
  userId: string,
  address: string,
  now: Date,
  isRight: () => Promise<boolean>,
  wrongMessage: string,
): Promise<{ ok: true } | { ok: false; message: string; retryAfterSeconds?: number }> {
  const byAddress = await takeSlot(stores, `2fa:addr:${address}`, ADDRESS_FAILURES, FAILURE_WINDOW_MS, now);
  if (!byAddress.ok) return { ok: false, message: TOO_MANY_ATTEMPTS, retryAfterSeconds: byAddress.retryAfterSeconds };
  const byAccount = await takeSlot(stores, `2fa:acct:${userId}`, ACCOUNT_FAILURES, FAILURE_WINDOW_MS, now);
  if (!byAccount.ok) {
    await releaseSlot(stores, byAddress.slotId);
    return { ok: false, message: TOO_MANY_ATTEMPTS, retryAfterSeconds: byAccount.retryAfterSeconds };
  }
  if (!(await isRight())) return { ok: false, message: wrongMessage };
  await releaseSlot(stores, byAccount.slotId);
  await releaseSlot(stores, byAddress.slotId);
  return { ok: true };
}

async function answerIsRight(stores: UserStores, keys: PurposeKeys, userId: string, answer: SecondFactorAnswer, now: Date): Promise<boolean> {
  const user = await stores.users.findUser(userId);
  if (!user || user.disabledAt) return false;
  if (answer.kind === 'recovery_code') {
    const hash = recoveryCodeHash(answer.value);
    return hash !== null && stores.users.consumeRecoveryCode(userId, hash);
  }
  if (!user.totpSecretSealed) return false;
  const check = await checkTotpCode(openTotpSecret(keys, userId, user.totpSecretSealed), answer.value, now, user.totpLastStep ?? null);
  // The step is recorded only if no other request took it meanwhile: one code, one use.
  return check.ok && stores.users.acceptTotpStep(userId, check.timeStep);
}
