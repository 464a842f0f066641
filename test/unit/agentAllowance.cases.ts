import { afterAgentSpend, allowanceLeft, allowanceRefusal, spenderOf, utcDayBefore, utcDayOf, type AgentSpender } from '../../core/credits/agentAllowance';
import { afterSpending, fundableUnits, fundingRefusal, type FundingState } from '../../core/credits/credits';
import { allowanceRefusalUnder, effectiveAllowance, raisesAllowance, type AgentPolicy } from '../../core/oauth/grantAllowance';

const spender = (over: Partial<AgentSpender> = {}): AgentSpender => ({
  grantId: 'cg_a',
  clientId: 'client-a',
  clientName: 'Claude',
  dailyCredits: 10,
  day: '2026-11-28',
  ...over,
});
const funds = (over: Partial<FundingState> = {}): FundingState => ({ creditBalance: 100, budgetRemaining: null, familyBudgets: {}, agentSpend: null, ...over });

describe('a daily allowance is a UTC day', () => {
  test('the day is the UTC date, whatever the local time', () => {
    expect(utcDayOf(new Date('2026-11-28T23:59:59.999Z'))).toBe('2026-11-28');
    expect(utcDayOf(new Date('2026-11-29T00:00:00.000Z'))).toBe('2026-11-29');
    expect(utcDayBefore('2026-03-01', 1)).toBe('2026-02-28');
    expect(utcDayBefore('2026-11-28', 29)).toBe('2026-10-30');
  });
  test("yesterday's spend leaves today's allowance whole", () => {
    const yesterday = { day: '2026-11-27', byGrant: { cg_a: 10 } };
    expect(allowanceLeft(yesterday, spender())).toBe(10);
    expect(afterAgentSpend(yesterday, spender(), 3)).toEqual({ day: '2026-11-28', byGrant: { cg_a: 3 } });
  });
  test('a charge dated before the head day adds nothing to the new day', () => {
    const today = { day: '2026-11-28', byGrant: { cg_a: 4 } };
    expect(afterAgentSpend(today, spender({ day: '2026-11-27' }), 5)).toEqual(today);
  });
});

describe('the allowance in the funding rules', () => {
  test('a call over the allowance is refused naming the allowance and what is left; another application is not affected', () => {
    const state = funds({ agentSpend: { day: '2026-11-28', byGrant: { cg_a: 8, cg_b: 1 } } });
    const refusal = fundingRefusal(state, 'user_1', 5, spender())!;
    expect(refusal.code).toBe('agent_allowance_exhausted');
    expect(refusal.status).toBe(402);
    expect(refusal.extensions).toEqual({ daily_allowance: 10, allowance_remaining: 2, required_credits: 5 });
    expect(refusal.detail).toContain('Claude may spend 10 credit(s) a day');
    expect(refusal.detail).toContain('2 left today');
    expect(refusal.detail).toContain('Connected applications');
    expect(fundingRefusal(state, 'user_1', 2, spender())).toBeNull();
    expect(fundingRefusal(state, 'user_1', 5, spender({ grantId: 'cg_b' }))).toBeNull();
    expect(fundingRefusal(state, 'user_1', 5)).toBeNull();
  });
  test('spending counts against the application and the credits at once', () => {
    const after = afterSpending(funds(), 'user_1', 4, spender());
    expect(after).toEqual({ creditBalance: 96, budgetRemaining: null, familyBudgets: {}, agentSpend: { day: '2026-11-28', byGrant: { cg_a: 4 } } });
    expect(afterSpending(funds(), 'kf_1', 4).agentSpend).toBeNull();
  });
  test('a bulk charge covers no more units than the allowance leaves', () => {
    const state = funds({ agentSpend: { day: '2026-11-28', byGrant: { cg_a: 7 } } });
    expect(fundableUnits(state, 'user_1', 1, 40, spender())).toBe(3);
    expect(fundableUnits(state, 'user_1', 1, 40, spender({ dailyCredits: null }))).toBe(40);
  });
  test('no daily allowance: only credits and budgets bound it', () => {
    expect(allowanceRefusal(null, spender({ dailyCredits: null }), 1_000)).toBeNull();
  });
  test('a read-only application may spend nothing', () => {
    const readOnly = spenderOf({ grantId: 'cg_r', clientId: 'c', clientName: 'Reader', allowance: { mode: 'read_only', dailyCredits: null } }, new Date());
    expect(readOnly.dailyCredits).toBe(0);
    expect(fundingRefusal(funds(), 'user_1', 1, readOnly)?.code).toBe('agent_allowance_exhausted');
  });
});

describe("the organization's policy bounds every allowance", () => {
  const policy: AgentPolicy = { mode: 'spend', defaultDailyCredits: 20, maxDailyCredits: 100 };
  test('the largest daily allowance caps a grant, and "no daily allowance" becomes the largest', () => {
    expect(effectiveAllowance({ mode: 'daily', dailyCredits: 500 }, policy)).toEqual({ mode: 'daily', dailyCredits: 100 });
    expect(effectiveAllowance({ mode: 'daily', dailyCredits: 30 }, policy)).toEqual({ mode: 'daily', dailyCredits: 30 });
    expect(effectiveAllowance({ mode: 'unlimited', dailyCredits: null }, policy)).toEqual({ mode: 'daily', dailyCredits: 100 });
    expect(effectiveAllowance({ mode: 'unlimited', dailyCredits: null }, { ...policy, maxDailyCredits: null })).toEqual({
      mode: 'unlimited',
      dailyCredits: null,
    });
  });
  test('"Only read" makes every application read only', () => {
    expect(effectiveAllowance({ mode: 'daily', dailyCredits: 30 }, { ...policy, mode: 'read_only' })).toEqual({ mode: 'read_only', dailyCredits: null });
  });
  test('a person may choose only what the policy allows', () => {
    expect(allowanceRefusalUnder(policy, { mode: 'daily', dailyCredits: 100 })).toBeNull();
    expect(allowanceRefusalUnder(policy, { mode: 'daily', dailyCredits: 101 })).toContain('at most 100 credits a day');
    expect(allowanceRefusalUnder(policy, { mode: 'daily', dailyCredits: 0 })).toContain('1 or more');
    expect(allowanceRefusalUnder(policy, { mode: 'unlimited', dailyCredits: null })).not.toBeNull();
    expect(allowanceRefusalUnder({ ...policy, maxDailyCredits: null }, { mode: 'unlimited', dailyCredits: null })).toBeNull();
    expect(allowanceRefusalUnder({ ...policy, mode: 'read_only' }, { mode: 'daily', dailyCredits: 5 })).toContain('only read');
    expect(allowanceRefusalUnder({ ...policy, mode: 'read_only' }, { mode: 'read_only', dailyCredits: null })).toBeNull();
  });
  test('raising is any change that lets the application spend more', () => {
    expect(raisesAllowance({ mode: 'daily', dailyCredits: 10 }, { mode: 'daily', dailyCredits: 20 })).toBe(true);
    expect(raisesAllowance({ mode: 'daily', dailyCredits: 10 }, { mode: 'daily', dailyCredits: 5 })).toBe(false);
    expect(raisesAllowance({ mode: 'read_only', dailyCredits: null }, { mode: 'daily', dailyCredits: 1 })).toBe(true);
    expect(raisesAllowance({ mode: 'daily', dailyCredits: 10 }, { mode: 'unlimited', dailyCredits: null })).toBe(true);
    expect(raisesAllowance({ mode: 'unlimited', dailyCredits: null }, { mode: 'read_only', dailyCredits: null })).toBe(false);
  });
});
