import { Problem } from '../problems';
import { spenderOf, type AgentOfCall, type AgentSpender } from './agentAllowance';
import { assertCanFund, findCharge, fundingRefusal, type FundingState, type CreditDeps } from './credits';
import { PRICES } from './prices';

/**
 * The one rule of SPEC 7.2's 402 ("work cannot be funded at its minimum useful size; raised
 * before any provider work"): every paid operation asks it FIRST, before it reads anything of
 * the dataset, so a refusal depends only on the caller's own funds and can tell nothing about
 * the data (whether an email belongs to someone, how many people match). The amount is the
 * price of the operation's smallest useful answer, never of what the data would have given.
 */
export const SMALLEST_ANSWER = {
  /** One page of results. */
  search: PRICES.searchPage,
  /** One profile. */
  unlock: PRICES.profileUnlock,
  /** One match. */
  match: PRICES.personMatch,
  /** One delivered contact record. */
  contactJob: PRICES.contactRecord,
} as const;

export type PaidOperationKind = keyof typeof SMALLEST_ANSWER;

export interface Payer {
  orgId: string;
  familyId: string;
  /** The connected AI application paying through a tool call, held to its daily allowance. */
  agent?: AgentSpender;
}

/** The payer of a caller's paid work at `now`: its organization, key family and, on a tool call, its connected application. */
export function payerOf(caller: { orgId: string; familyId: string; agent?: AgentOfCall }, now: Date): Payer {
  return { orgId: caller.orgId, familyId: caller.familyId, ...(caller.agent ? { agent: spenderOf(caller.agent, now) } : {}) };
}

/**
 * Throws the 402 problem (`insufficient_credits` with `required_credits` = the smallest answer's
 * price, or a budget's code) when the payer cannot fund the smallest useful answer of `kind`;
 * charges nothing. `paidUnder`: the charge key of this very request, when it may have paid
 * before (a retry after a crash finds its receipt, not a 402).
 */
export async function assertCanFundSmallestAnswer(deps: CreditDeps, kind: PaidOperationKind, payer: Payer, paidUnder?: string): Promise<void> {
  try {
    await assertCanFund(deps, { orgId: payer.orgId, familyId: payer.familyId, amount: SMALLEST_ANSWER[kind], agent: payer.agent });
  } catch (err) {
    if (paidUnder && err instanceof Problem && err.status === 402 && (await findCharge(deps.stores, paidUnder))) return;
    throw err;
  }
}

/**
 * The refusal of the smallest answer of `kind` from `state` (the same problem the check above
 * throws): what an operation answers when a concurrent spend took the funds between its check
 * and its charge, so even that late refusal carries nothing of what the data held.
 */
export function smallestAnswerRefusal(kind: PaidOperationKind, state: FundingState, familyId: string, agent?: AgentSpender): Problem | null {
  return fundingRefusal(state, familyId, SMALLEST_ANSWER[kind], agent);
}
