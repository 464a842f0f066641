import { z } from 'zod';
import { noticeSecondFactorChange } from '../../../core/accounts/securityNotices';
import { notFound, validationFailed } from '../../../core/problems';
import { securityPolicyOf, setSecondFactorRequired } from '../../../core/tenancy/securityPolicy';
import { regenerateRecoveryCodes, turnOffAuthenticatorApp, turnOnAuthenticatorApp } from '../../../core/users/authenticatorApp';
import type { UserStores } from '../../../core/users/store';
import { findActiveUser, type UserRecord } from '../../../core/users/users';
import { defineConsoleChange, defineConsoleOperation } from '../consoleOperation';
import { CONSOLE_PATHS } from '../consolePaths';

/**
 * The Security page's writes (DECISIONS.md "Accounts, settings …"), each a change of the person's
 * own (any role): turning the authenticator app on with a first code, turning it off and
 * generating new recovery codes (both in sudo mode, sudoOperations.ts). Each is audited without
 * a secret (no TOTP secret, no code) and mailed to the person as a security notice. And
 * Settings' "Require two-factor authentication" (admins, sudo mode), `security_policy.updated`.
 */
const AUTHENTICATOR_APP = 'authenticator_app';
const LAST_FACTOR_REQUIRED = 'Your organization requires two-factor authentication: add another second factor before you turn this one off.';

/** The person acting (their principal names them). */
async function self(stores: UserStores, userId: string): Promise<UserRecord> {
  const user = await findActiveUser(stores, userId);
  if (!user) throw notFound('person');
  return user;
}

const personFields = (user: UserRecord) => ({ user_id: user._id, email: user.email });

export interface AuthenticatorAppTurnedOn {
  user_id: string;
  email: string;
  method: string;
  /** Shown once on "Your recovery codes"; the audit allowlist keeps them out of the entry. */
  recovery_codes: string[];
}

const enableAuthenticatorApp = defineConsoleOperation({
  operation: 'console.security.enable_authenticator_app',
  path: `${CONSOLE_PATHS.security}/authenticator-app`,
  summary: 'Turn on an authenticator app',
  body: z.object({ code: z.string().max(20) }).strict(),
  ownChange: true,
  handler: async ({ principal, body, deps }) => {
    const user = await self(deps.stores, principal.keyId);
    const now = new Date(deps.now());
    const result = await turnOnAuthenticatorApp(deps.stores, deps.purposeKeys, user._id, body.code, now);
    if (!result.ok) throw validationFailed([{ field: 'code', message: result.message }], result.message);
    await noticeSecondFactorChange(deps.stores, deps.config, deps.purposeKeys, user, 'factor_added', now);
    const view: AuthenticatorAppTurnedOn = { ...personFields(user), method: AUTHENTICATOR_APP, recovery_codes: result.recoveryCodes };
    return { status: 201, body: view };
  },
  audit: {
    change: ({ principal }, result) => ({ action: 'mfa.enabled', target: principal.keyId, after: { ...(result.body as AuthenticatorAppTurnedOn) } }),
  },
});

const disableAuthenticatorApp = defineConsoleOperation({
  operation: 'console.security.disable_authenticator_app',
  path: `${CONSOLE_PATHS.security}/authenticator-app/remove`,
  summary: 'Turn off the authenticator app',
  body: z.object({}).strict(),
  ownChange: true,
  handler: async ({ principal, deps }) => {
    const user = await self(deps.stores, principal.keyId);
    const result = await turnOffAuthenticatorApp(deps.stores, user._id);
    if (result === 'required') throw validationFailed([{ field: 'authenticator_app', message: LAST_FACTOR_REQUIRED }], LAST_FACTOR_REQUIRED);
    if (result === 'was_off') throw notFound('authenticator app');
    const now = new Date(deps.now());
    await noticeSecondFactorChange(deps.stores, deps.config, deps.purposeKeys, user, 'factor_removed', now);
    return { status: 200, body: { ...personFields(user), method: AUTHENTICATOR_APP } };
  },
  audit: {
    change: ({ principal }, result) => ({ action: 'mfa.disabled', target: principal.keyId, before: { ...(result.body as Record<string, unknown>) } }),
  },
});

export interface RecoveryCodesGenerated {
  user_id: string;
  email: string;
  count: number;
  recovery_codes: string[];
}

const generateRecoveryCodes = defineConsoleOperation({
  operation: 'console.security.generate_recovery_codes',
  path: `${CONSOLE_PATHS.security}/recovery-codes`,
  summary: 'Generate new recovery codes',
  body: z.object({}).strict(),
  ownChange: true,
  handler: async ({ principal, deps }) => {
    const user = await self(deps.stores, principal.keyId);
    const codes = await regenerateRecoveryCodes(deps.stores, user._id);
    if (!codes) throw notFound('second factor');
    const view: RecoveryCodesGenerated = { ...personFields(user), count: codes.length, recovery_codes: codes };
    return { status: 201, body: view };
  },
  audit: {
    change: ({ principal }, result) => ({ action: 'recovery_codes.generated', target: principal.keyId, after: { ...(result.body as RecoveryCodesGenerated) } }),
  },
});

const securityPolicy = defineConsoleChange({
  operation: 'console.settings.security_policy',
  path: `${CONSOLE_PATHS.settings}/security`,
  summary: 'Require two-factor authentication',
  body: z.object({ require_second_factor: z.enum(['on', 'off']) }).strict(),
  change: ({ principal, body, deps }) => setSecondFactorRequired(deps.stores, principal.orgId, body.require_second_factor === 'on'),
  audit: {
    action: 'security_policy.updated',
    target: ({ principal }) => principal.orgId,
    before: async ({ principal, deps }) => ({ ...(await securityPolicyOf(deps.stores, principal.orgId)) }),
    after: (_input, policy) => ({ ...policy }),
  },
});

export const securityOperations = [enableAuthenticatorApp, disableAuthenticatorApp, generateRecoveryCodes, securityPolicy];
