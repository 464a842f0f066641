import type { Config } from '../config';
import type { PurposeKeys } from '../crypto/purposeKeys';
import { recordAuditEvent, type AuditStores } from '../audit/auditLog';
import { sha256Hex } from '../crypto/hash';
import { passwordChangedMail, passwordResetMail } from '../mail/mailMessages';
import { queueMail } from '../mail/mailOutbox';
import type { MailStores } from '../mail/store';
import { endSignInsOf } from '../oauth/personAccess';
import { takeSlot } from '../users/attemptSlots';
import { completeSetup, findUserByEmail, normalizeEmail, reissueSetup, type SetupResult } from '../users/users';
import { PASSWORD_RESET_PATH, SIGN_IN_PATH } from './accountPaths';
import type { OAuthStores } from '../oauth/store';
import type { UserStores } from '../users/store';

/**
 * "Forgot password?" (DECISIONS.md "Accounts, settings …"): a known, active address is mailed a
 * 1-hour reset link (the person's earlier link stops working); an unknown one gets nothing. The
 * page answers the same for both before any of this runs (api/oauth/passwordResetPages.ts), so
 * neither the words, the status nor the time tell them apart. Using the link sets the password
 * and ends every session and token chain (core/oauth/personAccess.ts `endSignInsOf`), audits
 * `user.password_reset` and mails a notice.
 */
export const RESET_MAILS_PER_HOUR = 5;
const HOUR_MS = 3600_000;

type ResetSettings = Pick<Config, 'authUrl'>;

/** Mails a reset link when the address has an active account and has not asked too often this hour; otherwise nothing. */
export async function requestPasswordReset(
  stores: MailStores & UserStores,
  config: ResetSettings,
  keys: PurposeKeys,
  email: string,
  now: Date,
): Promise<'mailed' | 'nothing'> {
  const user = await findUserByEmail(stores, email);
  if (!user || user.disabledAt) return 'nothing';
  // Bounds how much mail one address can be sent through this form.
  const slot = await takeSlot(stores, `reset:acct:${sha256Hex(normalizeEmail(email))}`, RESET_MAILS_PER_HOUR, HOUR_MS, now);
  if (!slot.ok) return 'nothing';
  const link = await reissueSetup(stores, config, user._id, now, 'reset');
  await queueMail(stores, keys, user.email, passwordResetMail({ link: link.setup_url, expiresAt: new Date(link.setup_expires_at) }), now);
  return 'mailed';
}

/**
 * Sets the password through a one-time link. When it replaced a password (a reset, or a
 * recovery through the operator's link), the change is audited and the person is told by mail.
 */
export async function setPasswordThroughLink(
  stores: AuditStores & MailStores & OAuthStores & UserStores,
  config: Pick<Config, 'authUrl' | 'oauth'>,
  keys: PurposeKeys,
  token: string,
  password: string,
  confirmation: string,
  now: Date,
  clientAddress: string | null,
): Promise<SetupResult> {
  const result = await completeSetup(stores, config, token, password, confirmation, now);
  if (!result.ok) return result;
  // A new password (a recovery, perhaps after a leak) ends whatever the previous one opened: browser sessions and connected applications.
  await endSignInsOf(stores, result.user._id, now);
  if (!result.replacedPassword) return result;
  const { user } = result;
  await recordAuditEvent(stores, {
    orgId: user.orgId,
    actor: `user:${user._id}`,
    action: 'user.password_reset',
    target: user._id,
    after: { user_id: user._id, email: user.email },
    clientAddress,
    now,
  });
  await queueMail(
    stores,
    keys,
    user.email,
    passwordChangedMail({ at: now, signInUrl: `${config.authUrl}${SIGN_IN_PATH}`, resetUrl: `${config.authUrl}${PASSWORD_RESET_PATH}` }),
    now,
  );
  return result;
}
