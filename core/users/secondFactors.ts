import { securityPolicyOf, type SecurityPolicy } from '../tenancy/securityPolicy';
import type { TenancyStores } from '../tenancy/store';
import { passkeyCountOf } from './passkeyCeremonies';
import type { UserRecord } from './store';
import type { PasskeyStores } from './passkeysStore';

/**
 * What second factors a person has (DECISIONS.md "Accounts, settings …"), the one place that
 * decides it: a person "has a second factor" when their authenticator app is turned on or they
 * have at least one passkey. Sign-in asks for one after the password, sudo mode accepts one, and
 * an organization that requires one sends whoever has none to enrol.
 */
export interface SecondFactors {
  authenticatorApp: boolean;
  /** Passkeys the person registered (core/users/passkeys*.ts counts them). */
  passkeys: number;
  /** Recovery codes not yet used. */
  recoveryCodes: number;
}

export async function secondFactorsOf(stores: PasskeyStores, user: UserRecord): Promise<SecondFactors> {
  return secondFactorsFrom(user, await passkeyCountOf(stores, user._id));
}

/** The rule itself, on what the person's record and passkey count say. */
export function secondFactorsFrom(user: UserRecord, passkeys: number): SecondFactors {
  return {
    authenticatorApp: typeof user.totpSecretSealed === 'string',
    passkeys,
    recoveryCodes: user.recoveryCodeHashes?.length ?? 0,
  };
}

/** Whether these factors make a second factor. */
export function anySecondFactor(factors: SecondFactors): boolean {
  return factors.authenticatorApp || factors.passkeys > 0;
}

export async function hasSecondFactor(stores: PasskeyStores, user: UserRecord): Promise<boolean> {
  return anySecondFactor(await secondFactorsOf(stores, user));
}

/**
 * Whether the person's organization requires a second factor and they have none yet: they may only enrol.
 * `policy` reads the organization's policy when needed (a caller that reads the organization anyway passes its own).
 */
export async function mustEnrolSecondFactor(
  stores: TenancyStores & PasskeyStores,
  user: UserRecord,
  policy: () => Promise<SecurityPolicy> = () => securityPolicyOf(stores, user.orgId),
): Promise<boolean> {
  if (await hasSecondFactor(stores, user)) return false;
  return (await policy()).require_second_factor;
}
