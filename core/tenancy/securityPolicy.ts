import { notFound } from '../problems';
import type { TenancyStores } from './store';

/**
 * An organization's security policy (DECISIONS.md "Accounts, settings …"): whether everyone in
 * it must have a second factor. An admin sets it on Settings, the operator for one organization
 * or for every one. Whoever has none is taken to enrol (core/users/secondFactors.ts).
 */
export interface SecurityPolicy {
  require_second_factor: boolean;
}

export async function securityPolicyOf(stores: TenancyStores, orgId: string): Promise<SecurityPolicy> {
  return securityPolicyFrom(await stores.tenancy.findOrganization(orgId));
}

/** The policy an organization record holds (none: nothing required), for a caller that read the record anyway. */
export function securityPolicyFrom(org: { requireSecondFactor?: boolean | null } | null): SecurityPolicy {
  return { require_second_factor: org?.requireSecondFactor === true };
}

export async function setSecondFactorRequired(stores: TenancyStores, orgId: string, required: boolean): Promise<SecurityPolicy> {
  if ((await stores.tenancy.storeSecondFactorRequirement(orgId, required)) === 0) throw notFound('organization');
  return { require_second_factor: required };
}

/** The operator's switch for every organization at once; answers how many there are. */
export async function setSecondFactorRequiredEverywhere(stores: TenancyStores, required: boolean): Promise<number> {
  return stores.tenancy.storeSecondFactorRequirement({ all: true }, required);
}
