import { newId } from '../ids';
import { validationFailed } from '../problems';
import type { AgentOfCall } from '../credits/agentAllowance';
import { agentPolicyOf } from './agentPolicy';
import { LEGACY_ALLOWANCE, allowanceRefusalUnder, effectiveAllowance, type AgentPolicy, type GrantAllowance } from './grantAllowance';
import { revokeChainsOf } from './tokenChains';
import type { OAuthStores, GrantRecord } from './store';

/**
 * A person's remembered consent to one client (DECISIONS.md "Interactive sign-in"): asked once,
 * kept until revoked (by the person on the "Connected applications" page, or by the operator).
 * Revoking deletes the grant and revokes every token chain of that person and client.
 */
export type { GrantRecord } from './store';

export function pairKeyOf(userId: string, clientId: string): string {
  return `${userId} ${clientId}`;
}

export async function findGrant(stores: OAuthStores, userId: string, clientId: string): Promise<GrantRecord | null> {
  return stores.oauth.findConsentGrantByPair(pairKeyOf(userId, clientId));
}

export interface ConsentInput {
  userId: string;
  orgId: string;
  clientId: string;
  clientName: string;
  scope: string;
  /** What the person chose on the consent page. */
  allowance: GrantAllowance;
}

/** What the grant allows: what the person chose, or for a grant made before allowances existed, no daily limit. */
export function allowanceOfGrant(grant: Pick<GrantRecord, 'allowanceMode' | 'dailyCredits'>): GrantAllowance {
  if (!grant.allowanceMode) return LEGACY_ALLOWANCE;
  return { mode: grant.allowanceMode, dailyCredits: grant.allowanceMode === 'daily' ? (grant.dailyCredits ?? 0) : null };
}

/**
 * The connected application a person's tool call comes through, with the allowance in force now
 * (the grant's, within the organization's policy); null when the person has no grant to it (a
 * token minted without one, as tests do: it acts with the person's permissions, as before).
 */
export async function agentOfCall(stores: OAuthStores, user: { _id: string; orgId: string }, clientId: string): Promise<AgentOfCall | null> {
  const [grant, policy] = await Promise.all([findGrant(stores, user._id, clientId), agentPolicyOf(stores, user.orgId)]);
  if (!grant) return null;
  return { grantId: grant._id, clientId, clientName: grant.clientName, allowance: effectiveAllowance(allowanceOfGrant(grant), policy) };
}

/** Refuses (422, naming the field) an allowance the organization's policy does not let a person choose. */
export function assertAllowanceAllowed(policy: AgentPolicy, allowance: GrantAllowance): void {
  const refusal = allowanceRefusalUnder(policy, allowance);
  if (refusal) throw validationFailed([{ field: allowance.mode === 'daily' ? 'daily_credits' : 'allowance', message: refusal }]);
}

/** Records consent; a concurrent or earlier consent to the same client is the same grant. */
export async function recordConsent(stores: OAuthStores, input: ConsentInput, now: Date): Promise<GrantRecord> {
  const { allowance, ...grant } = input;
  const doc: GrantRecord = {
    _id: newId('cg'),
    pairKey: pairKeyOf(input.userId, input.clientId),
    ...grant,
    allowanceMode: allowance.mode,
    dailyCredits: allowance.dailyCredits,
    createdAt: now,
  };
  if (await stores.oauth.insertConsentGrant(doc)) return doc;
  const existing = await findGrant(stores, input.userId, input.clientId);
  if (!existing) throw new Error('a consent grant was reported stored but cannot be read');
  return existing;
}

/** The person's grant, or null (another person's grant is not found). */
export async function grantOfUser(stores: OAuthStores, userId: string, grantId: string): Promise<GrantRecord | null> {
  return stores.oauth.findConsentGrantOfUser(userId, grantId);
}

/** Changes what the application may do from its next call on; the caller checked it against the policy. */
export async function changeGrantAllowance(stores: OAuthStores, grant: GrantRecord, allowance: GrantAllowance): Promise<GrantRecord> {
  await stores.oauth.setConsentGrantAllowance(grant._id, allowance);
  return { ...grant, allowanceMode: allowance.mode, dailyCredits: allowance.dailyCredits };
}

/** The names of the organization's connected applications by grant id (revoked ones are gone). */
export async function applicationNamesOfOrg(stores: OAuthStores, orgId: string): Promise<Map<string, string>> {
  return new Map((await stores.oauth.consentGrantsOfOrg(orgId)).map((g) => [g._id, g.clientName]));
}

export async function listGrants(stores: OAuthStores, userId: string): Promise<GrantRecord[]> {
  return stores.oauth.consentGrantsOf(userId);
}

/** Revokes one grant (clientId given) or all of a person's grants; returns the revoked client ids. */
export async function revokeGrants(stores: OAuthStores, userId: string, clientId: string | undefined, now: Date): Promise<string[]> {
  const grants =
    clientId === undefined ? await listGrants(stores, userId) : [await findGrant(stores, userId, clientId)].filter((g): g is GrantRecord => g !== null);
  for (const g of grants) await stores.oauth.deleteConsentGrant(g._id);
  // Chains are revoked even without a grant: a code redeemed while the grant was being deleted.
  await revokeChainsOf(stores, userId, clientId, now);
  return grants.map((g) => g.clientId);
}
