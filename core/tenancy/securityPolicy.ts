import { notFound } from '../problems';
import { findOrganization, storeSecondFactorRequirement } from './store';

/**
 * An organization's security policy (DECISIONS.md "Accounts, settings …"): whether everyone in
 * it must have a second factor. An admin sets it on Settings, the operator for one organization
 * or for every one. Whoever has none is taken to enrol (core/users/secondFactors.ts).
 */
export interface SecurityPolicy {
  require_second_factor: boolean;
}

export async function securityPolicyOf(orgId: string): Promise<SecurityPolicy> {
  const org = await findOrganization(orgId);
  return { require_second_factor: org?.requireSecondFactor === true };
}

export async function setSecondFactorRequired(orgId: string, required: boolean): Promise<SecurityPolicy> {
  if ((await storeSecondFactorRequirement(orgId, required)) === 0) throw notFound('organization');
  return { require_second_factor: required };
}

/** The operator's switch for every organization at once; answers how many there are. */
export async function setSecondFactorRequiredEverywhere(required: boolean): Promise<number> {
  return storeSecondFactorRequirement({ all: true }, required);
}
