import type { GrantAllowance } from '../credits/agentAllowance';

export type { AgentOfCall, AllowanceMode, GrantAllowance } from '../credits/agentAllowance';

/**
 * What a person allowed a connected AI application at consent (DECISIONS.md "Accounts, settings
 * and AI application allowances"), bounded by the organization's policy at every call: the
 * policy can lower an allowance or make every application read only, never raise one.
 */
/** The organization's rules for AI applications, set on the console's Settings page. */
export interface AgentPolicy {
  /** `spend`: within an allowance; `read_only`: every application only reads. */
  mode: 'spend' | 'read_only';
  /** What the consent page proposes. */
  defaultDailyCredits: number;
  /** The most a person may allow a day; null: no largest, so "Spend without a daily allowance" is offered. */
  maxDailyCredits: number | null;
}

/** The policy of an organization whose admin has set none. */
export const DEFAULT_AGENT_POLICY: AgentPolicy = { mode: 'spend', defaultDailyCredits: 50, maxDailyCredits: 500 };

/** The most credits a day anyone may type (a bound on the input, not a policy). */
export const ALLOWANCE_INPUT_MAX = 1_000_000_000;

/**
 * A grant made before allowances existed: the person allowed their permissions with no daily
 * limit, and it keeps what it had (within the organization's policy, like every grant).
 */
export const LEGACY_ALLOWANCE: GrantAllowance = { mode: 'unlimited', dailyCredits: null };

/** Whether the policy lets a person choose this allowance (the consent page and "Change allowance" ask it). */
export function allowanceRefusalUnder(policy: AgentPolicy, allowance: GrantAllowance): string | null {
  if (allowance.mode === 'read_only') return null;
  if (policy.mode === 'read_only') return 'Your organization lets AI applications only read.';
  if (allowance.mode === 'unlimited') {
    return policy.maxDailyCredits === null ? null : `Your organization allows at most ${policy.maxDailyCredits} credits a day.`;
  }
  const n = allowance.dailyCredits;
  if (n === null || !Number.isInteger(n) || n < 1) return 'Enter the credits a day as a whole number, 1 or more.';
  if (policy.maxDailyCredits !== null && n > policy.maxDailyCredits) return `Your organization allows at most ${policy.maxDailyCredits} credits a day.`;
  return null;
}

/** The allowance in force for a call: the grant's, lowered by the organization's policy now. */
export function effectiveAllowance(granted: GrantAllowance, policy: AgentPolicy): GrantAllowance {
  if (granted.mode === 'read_only' || policy.mode === 'read_only') return { mode: 'read_only', dailyCredits: null };
  const cap = policy.maxDailyCredits;
  if (granted.mode === 'unlimited') return cap === null ? granted : { mode: 'daily', dailyCredits: cap };
  const daily = granted.dailyCredits ?? 0;
  return { mode: 'daily', dailyCredits: cap === null ? daily : Math.min(daily, cap) };
}

/** Whether `next` lets the application spend more than `current` (raising needs sudo mode). */
export function raisesAllowance(current: GrantAllowance, next: GrantAllowance): boolean {
  const reach = (a: GrantAllowance) => (a.mode === 'read_only' ? 0 : a.mode === 'unlimited' ? Infinity : (a.dailyCredits ?? 0));
  return reach(next) > reach(current);
}

/** The allowance in words, as Connected applications shows it. */
export function allowanceText(a: GrantAllowance): string {
  if (a.mode === 'read_only') return 'Only read';
  if (a.mode === 'unlimited') return 'No daily allowance';
  return `${a.dailyCredits} credits a day`;
}
