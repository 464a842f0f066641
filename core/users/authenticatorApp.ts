import type { PurposeKeys } from '../crypto/purposeKeys';
import { openSecret, sealSecret } from '../crypto/secretBox';
import { checkTotpCode, newRecoveryCodes, newTotpSecret, totpUri } from './secondFactor';
import { securityPolicyOf } from '../tenancy/securityPolicy';
import type { TenancyStores } from '../tenancy/store';
import { secondFactorsOf } from './secondFactors';
import type { PasskeyStores } from './passkeysStore';
import type { UserStores, UserRecord } from './store';

/**
 * A person's authenticator app and recovery codes (DECISIONS.md "Accounts, settings …"), over the
 * rules of secondFactor.ts. The secret is offered on "Set up authenticator app", kept sealed
 * (never in plaintext at rest) as pending until a first code confirms it; turning it on answers
 * ten recovery codes, shown once and stored as hashes.
 */
/** Binds a sealed secret to its person, so one person's sealed value cannot be moved to another. */
const aadOf = (userId: string) => `totp:${userId}`;

export function openTotpSecret(keys: PurposeKeys, userId: string, sealed: string): string {
  return openSecret(keys, sealed, aadOf(userId));
}

export interface TotpOffer {
  secret: string;
  uri: string;
}

/** A new secret for the person to scan or type, pending until confirmed; a newer offer replaces an older one. */
export async function offerTotpSecret(stores: UserStores, keys: PurposeKeys, user: UserRecord): Promise<TotpOffer> {
  const secret = newTotpSecret();
  await stores.users.setPendingTotpSecret(user._id, sealSecret(keys, secret, aadOf(user._id)));
  return { secret, uri: totpUri(secret, user.email) };
}

/** The secret offered last and not yet confirmed (shown again when a first code was wrong), or null. */
export function pendingTotpOffer(keys: PurposeKeys, user: UserRecord): TotpOffer | null {
  if (!user.totpPendingSealed) return null;
  const secret = openTotpSecret(keys, user._id, user.totpPendingSealed);
  return { secret, uri: totpUri(secret, user.email) };
}

export type TurnOnResult = { ok: true; recoveryCodes: string[] } | { ok: false; message: string };

export const WRONG_FIRST_CODE = 'That code is not correct. Type the 6-digit code your authenticator app shows now.';
const NO_OFFER = 'Open "Set up authenticator app" again: this setup has expired or was replaced in another window.';

/** Turns the app on when `code` is the pending secret's code at `now`; answers the new recovery codes. */
export async function turnOnAuthenticatorApp(stores: UserStores, keys: PurposeKeys, userId: string, code: unknown, now: Date): Promise<TurnOnResult> {
  const user = await stores.users.findUser(userId);
  if (!user?.totpPendingSealed) return { ok: false, message: NO_OFFER };
  const check = await checkTotpCode(openTotpSecret(keys, userId, user.totpPendingSealed), code, now, null);
  if (!check.ok) return { ok: false, message: WRONG_FIRST_CODE };
  const { codes, hashes } = newRecoveryCodes();
  if (!(await stores.users.enableTotp(userId, user.totpPendingSealed, check.timeStep, hashes, now))) return { ok: false, message: NO_OFFER };
  return { ok: true, recoveryCodes: codes };
}

export type TurnOffResult = 'off' | 'was_off' | 'required';

/**
 * Turns the app off. Refused (`required`) when it is the person's last factor and their
 * organization requires one, as GitHub refuses it to a member of such an organization. Recovery
 * codes stay while another factor (a passkey) remains, and go with the last one.
 */
export async function turnOffAuthenticatorApp(stores: TenancyStores & UserStores & PasskeyStores, userId: string): Promise<TurnOffResult> {
  const user = await stores.users.findUser(userId);
  if (!user) return 'was_off';
  const factors = await secondFactorsOf(stores, user);
  if (factors.authenticatorApp && factors.passkeys === 0 && (await securityPolicyOf(stores, user.orgId)).require_second_factor) return 'required';
  return (await stores.users.disableTotp(userId, factors.passkeys > 0)) ? 'off' : 'was_off';
}

/** Ten new recovery codes replacing the old ones (which stop working); null when the person has no second factor to recover. */
export async function regenerateRecoveryCodes(stores: UserStores & PasskeyStores, userId: string): Promise<string[] | null> {
  const user = await stores.users.findUser(userId);
  if (!user) return null;
  const factors = await secondFactorsOf(stores, user);
  if (!factors.authenticatorApp && factors.passkeys === 0) return null;
  const { codes, hashes } = newRecoveryCodes();
  await stores.users.setRecoveryCodeHashes(userId, hashes);
  return codes;
}
