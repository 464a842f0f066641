import type { KeysStores } from '../keys/store';
import { Problem } from '../problems';
import type { TenancyStores } from '../tenancy/store';
import type { Scope, ScopeChain } from './limitTable';

/**
 * The chain of a key: its organization, application and family, then every key it succeeds by
 * rotation (oldest first), then the key itself. A cap or block set on a key therefore holds each
 * of its successors, and a per-minute cap counts their requests together (its log is the
 * scope's), so rotating a key never escapes a limit set on it.
 */
export function keyScopeChain(key: {
  orgId: string;
  applicationId: string;
  familyId: string;
  predecessorKeyIds?: readonly string[];
  keyId: string;
}): ScopeChain {
  return [
    { type: 'organization', id: key.orgId },
    { type: 'application', id: key.applicationId },
    { type: 'key_family', id: key.familyId },
    ...(key.predecessorKeyIds ?? []).map((id): Scope => ({ type: 'key', id })),
    { type: 'key', id: key.keyId },
  ];
}

/** The stores a scope's chain is read from. */
export type ScopeStores = TenancyStores & KeysStores;

/**
 * Where a scope sits in its organization (SPEC 8.3): the organization, then each narrower
 * scope down to the one asked for; a key family's application and a key's application and
 * family come from the stored key. The one lookup behind reading limits (the API and the
 * operator CLI) and changing them, so all three agree on what belongs to an organization.
 */
export async function findScopeChain(stores: ScopeStores, orgId: string, scope: Scope): Promise<ScopeChain | undefined> {
  const org: Scope = { type: 'organization', id: orgId };
  switch (scope.type) {
    case 'organization':
      return scope.id === orgId ? [org] : undefined;
    case 'application':
      return (await stores.tenancy.applicationExistsInOrg(orgId, scope.id)) ? [org, scope] : undefined;
    case 'key_family': {
      const applicationId = await stores.keys.applicationOfFamily(orgId, scope.id);
      return applicationId !== null ? [org, { type: 'application', id: applicationId }, scope] : undefined;
    }
    case 'key': {
      const key = await stores.keys.findListedKeyOfOrg(orgId, scope.id);
      return key ? keyScopeChain({ ...key, keyId: key._id }) : undefined;
    }
  }
}

/** The scope's chain; a scope that is not the organization's own (another's, or none) is `not_found`. */
export async function scopeChain(stores: ScopeStores, orgId: string, scope: Scope): Promise<ScopeChain> {
  const chain = await findScopeChain(stores, orgId, scope);
  if (!chain) throw new Problem('not_found', `The ${scope.type.replace('_', ' ')} ${scope.id} does not exist in organization ${orgId}.`);
  return chain;
}
