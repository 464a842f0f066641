import { validationFailed } from '../problems';
import { DEFAULT_AGENT_POLICY, type AgentPolicy } from './grantAllowance';
import type { OAuthStores } from './store';

/**
 * An organization's policy for its people's AI applications (DECISIONS.md "Accounts, settings
 * and AI application allowances"): what consent proposes, the most a person may allow a day, and
 * whether applications may spend at all. Every tool call reads it, so a change holds from the
 * next call on.
 */
export async function agentPolicyOf(stores: OAuthStores, orgId: string): Promise<AgentPolicy> {
  const stored = await stores.oauth.findAgentPolicy(orgId);
  if (!stored) return DEFAULT_AGENT_POLICY;
  return { mode: stored.mode, defaultDailyCredits: stored.defaultDailyCredits, maxDailyCredits: stored.maxDailyCredits };
}

/** Refuses a policy whose default exceeds its largest allowance (the admin sees which field to fix). */
function checkPolicy(policy: AgentPolicy): void {
  if (policy.maxDailyCredits !== null && policy.defaultDailyCredits > policy.maxDailyCredits) {
    throw validationFailed([{ field: 'default_daily_credits', message: 'the default daily allowance cannot exceed the largest daily allowance' }]);
  }
  if (policy.defaultDailyCredits < 1) throw validationFailed([{ field: 'default_daily_credits', message: 'the default daily allowance is at least 1 credit' }]);
}

export async function setAgentPolicy(stores: OAuthStores, orgId: string, policy: AgentPolicy, now: Date): Promise<AgentPolicy> {
  checkPolicy(policy);
  await stores.oauth.storeAgentPolicy({ _id: orgId, ...policy, updatedAt: now });
  return policy;
}
