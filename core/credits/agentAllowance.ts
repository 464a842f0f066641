import { Problem } from '../problems';
import type { AgentSpendState, CreditStores } from './store';

/**
 * The daily allowance of a person's connected AI application (DECISIONS.md "Accounts, settings
 * and AI application allowances"). It is one more limit of the organization's ledger chain,
 * beside the credit balance and the budgets: the credits each application spent on the current
 * UTC day live in the head entry, so the check and the charge are the same atomic append and
 * concurrent calls cannot spend past it.
 */

/** Who spends through a tool call of a connected application, and how much it may spend a day. */
export interface AgentSpender {
  /** The person's grant to the application (`cg_…`): what the allowance belongs to. */
  grantId: string;
  clientId: string;
  clientName: string;
  /** Credits it may spend in `day`; null: no daily allowance (only the credits and budgets bound it). */
  dailyCredits: number | null;
  /** The UTC day of the charge (`YYYY-MM-DD`), from the caller's clock. */
  day: string;
}

export type AllowanceMode = 'read_only' | 'daily' | 'unlimited';

/** What a person allowed a connected application: only reading, a daily allowance, or no daily allowance. */
export interface GrantAllowance {
  mode: AllowanceMode;
  /** Credits a UTC day, for `daily`; null otherwise. */
  dailyCredits: number | null;
}

/** A tool call's connected application, as the principal carries it to the charge path. */
export interface AgentOfCall {
  grantId: string;
  clientId: string;
  clientName: string;
  /** In force for this call: the grant's, within the organization's policy. */
  allowance: GrantAllowance;
}

/** Who spends, for a charge made at `now`: a read-only application's allowance is zero credits. */
export function spenderOf(agent: AgentOfCall, now: Date): AgentSpender {
  const { mode, dailyCredits } = agent.allowance;
  return {
    grantId: agent.grantId,
    clientId: agent.clientId,
    clientName: agent.clientName,
    dailyCredits: mode === 'read_only' ? 0 : mode === 'unlimited' ? null : dailyCredits,
    day: utcDayOf(now),
  };
}

export type { AgentSpendState };

/** The UTC day of `at`, `YYYY-MM-DD`: an allowance starts afresh at UTC midnight. */
export function utcDayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The UTC day `days` days before `day` (`YYYY-MM-DD`). */
export function utcDayBefore(day: string, days: number): string {
  return utcDayOf(new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000));
}

/** What the application spent on the spender's day. */
export function spentOnDay(state: AgentSpendState | null | undefined, spender: Pick<AgentSpender, 'grantId' | 'day'>): number {
  return state && state.day === spender.day ? (state.byGrant[spender.grantId] ?? 0) : 0;
}

/** Credits left of the allowance today; null when it has no daily allowance. */
export function allowanceLeft(state: AgentSpendState | null | undefined, spender: AgentSpender): number | null {
  if (spender.dailyCredits === null) return null;
  return Math.max(0, spender.dailyCredits - spentOnDay(state, spender));
}

/** The tool error of a paid call the allowance does not cover: the allowance, what is left, and where to raise it. */
export function allowanceRefusal(state: AgentSpendState | null | undefined, spender: AgentSpender, amount: number): Problem | null {
  const left = allowanceLeft(state, spender);
  if (left === null || left >= amount) return null;
  return new Problem(
    'agent_allowance_exhausted',
    `${spender.clientName} may spend ${spender.dailyCredits} credit(s) a day (a UTC day); ${left} left today, and this call needs ${amount}. ` +
      'Nothing was charged. The person who connected it can raise the allowance under Connected applications in the console.',
    { extensions: { daily_allowance: spender.dailyCredits, allowance_remaining: left, required_credits: amount } },
  );
}

/**
 * The day's spend after the application spent `amount`. A charge of an earlier day than the
 * head's (a clock behind another process's at midnight) counts nothing more on the new day.
 */
export function afterAgentSpend(state: AgentSpendState | null | undefined, spender: AgentSpender | undefined, amount: number): AgentSpendState | null {
  const current = state ?? null;
  if (!spender || amount === 0) return current;
  if (current && current.day > spender.day) return current;
  const byGrant = current && current.day === spender.day ? { ...current.byGrant } : {};
  byGrant[spender.grantId] = (byGrant[spender.grantId] ?? 0) + amount;
  return { day: spender.day, byGrant };
}

/** What a connected application spent today and over the last 30 UTC days (today included). */
export interface AgentSpendSummary {
  today: number;
  last30Days: number;
}

/** Each grant's spend, from the ledger's charges that name it; `today` is the UTC day from the caller's clock. */
export async function agentSpendOf(stores: CreditStores, grantIds: readonly string[], today: string): Promise<Map<string, AgentSpendSummary>> {
  const spend = new Map<string, AgentSpendSummary>(grantIds.map((id) => [id, { today: 0, last30Days: 0 }]));
  for (const charge of await stores.credits.agentChargesSince(grantIds, utcDayBefore(today, 29))) {
    const summary = charge.agentGrantId ? spend.get(charge.agentGrantId) : undefined;
    if (!summary || !charge.agentDay || charge.agentDay > today) continue;
    summary.last30Days += charge.amount;
    if (charge.agentDay === today) summary.today += charge.amount;
  }
  return spend;
}
