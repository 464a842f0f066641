import type { Config } from '../config';
import type { PurposeKeys } from '../crypto/purposeKeys';
import { sha256Hex } from '../crypto/hash';
import { randomBase62 } from '../ids';
import { securityNoticeMail } from '../mail/mailMessages';
import { queueMail } from '../mail/mailOutbox';
import type { MailStores } from '../mail/store';
import { roleOf } from '../users/adminSeats';
import type { UserStores } from '../users/store';
import type { UserRecord } from '../users/store';
import { CONSOLE_OVERVIEW_PATH, CONSOLE_SECURITY_PATH } from './accountPaths';

/**
 * Security notices by mail (DECISIONS.md "Accounts, settings …"): what happened, when, and what
 * to do if it was not the person. A new API key is told to every active admin of the
 * organization; a sign-in from a browser the person has not signed in from before is told to them.
 */
type NoticeSettings = Pick<Config, 'authUrl'>;

/** Browsers a person is remembered in (the newest kept): a sign-in from any other is a new browser. */
export const KNOWN_BROWSERS_KEPT = 20;
const BROWSER_VALUE = /^[0-9A-Za-z]{32}$/;

export async function noticeApiKeyCreated(
  stores: MailStores & UserStores,
  config: NoticeSettings,
  keys: PurposeKeys,
  input: { orgId: string; keyName: string; by: string; at: Date },
): Promise<void> {
  const admins = (await stores.users.usersOfOrg(input.orgId)).filter((u) => roleOf(u) === 'admin' && !u.disabledAt && u.passwordHash);
  const mail = securityNoticeMail('api_key_created', {
    at: input.at,
    what: `${input.by} created the API key "${input.keyName}" in your organization`,
    consoleUrl: `${config.authUrl}/console/keys`,
  });
  for (const admin of admins) await queueMail(stores, keys, admin.email, mail, input.at);
}

/**
 * After a password sign-in: remembers this browser for the person (a random value in a
 * long-lived cookie, its hash on the person) and, when the person has signed in before but never
 * from this browser, mails them a notice. Answers the browser value to keep in the cookie.
 */
export async function signedInFromBrowser(
  stores: MailStores & UserStores,
  config: NoticeSettings,
  keys: PurposeKeys,
  user: UserRecord,
  presented: string | undefined,
  input: { userAgent: string; at: Date },
): Promise<string> {
  const value = presented && BROWSER_VALUE.test(presented) ? presented : randomBase62(32);
  const hash = sha256Hex(value);
  const known = user.knownBrowsers ?? [];
  if (known.includes(hash)) return value;
  if (known.length > 0) {
    const browser = input.userAgent.slice(0, 200) || 'an unknown browser';
    await queueMail(
      stores,
      keys,
      user.email,
      securityNoticeMail('new_browser_sign_in', {
        at: input.at,
        what: `Someone signed in to your account from a browser not used with it before (${browser})`,
        consoleUrl: `${config.authUrl}${CONSOLE_OVERVIEW_PATH}`,
      }),
      input.at,
    );
  }
  await stores.users.setKnownBrowsers(user._id, [...known, hash].slice(-KNOWN_BROWSERS_KEPT));
  return value;
}

/** What changed about a person's second factor, told to them (never the secret or a code). */
export type SecondFactorNotice = 'factor_added' | 'factor_removed' | 'recovery_code_used';

const SECOND_FACTOR_TEXT: Record<SecondFactorNotice, string> = {
  factor_added: 'An authenticator app was turned on for your account',
  factor_removed: 'The authenticator app of your account was turned off',
  recovery_code_used: 'One of your recovery codes was used to sign in; it works no more',
};

export async function noticeSecondFactorChange(
  stores: MailStores,
  config: NoticeSettings,
  keys: PurposeKeys,
  user: Pick<UserRecord, 'email'>,
  kind: SecondFactorNotice,
  at: Date,
  /** Replaces the standard sentence (a passkey's name, for instance). */
  what?: string,
): Promise<void> {
  await queueMail(
    stores,
    keys,
    user.email,
    securityNoticeMail(kind, { at, what: what ?? SECOND_FACTOR_TEXT[kind], consoleUrl: `${config.authUrl}${CONSOLE_SECURITY_PATH}` }),
    at,
  );
}
