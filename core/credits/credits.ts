import { lazyLru } from '../store/lazyLru';
import { newId } from '../ids';
import { creditsCharged } from '../observability/metrics';
import { Problem } from '../problems';
import { afterAgentSpend, allowanceLeft, allowanceRefusal, type AgentSpender, type AgentSpendState } from './agentAllowance';
import { ChainHeads } from './chain';
import type { CreditStores, LedgerEntryRecord } from './store';

/**
 * Credits and budgets (SPEC 7.3, DECISIONS.md "Paid operations"). Every movement is one
 * insert of the next entry of the organization's ledger chain, carrying the balance and
 * budgets after it: one atomic write, no transactions, and the writer that loses the race
 * re-reads and re-checks, so nothing ever goes below zero (see chain.ts for why inserts and
 * not conditional updates: FerretDB 1.x loses concurrent updates).
 */

export interface FundingInput {
  orgId: string;
  familyId: string;
  amount: number;
  /** The connected AI application spending, held to its daily allowance; absent for API keys and M2M clients. */
  agent?: AgentSpender;
}

export interface ChargeInput extends FundingInput {
  operation: string;
  /** Unique name of this charge; a repeat returns the first receipt. */
  chargeKey: string;
  /** The request paying, recorded when chargeKey names the thing bought (many requests, one charge). */
  requestKey?: string;
}

export interface ChargeResult {
  receiptId: string;
  /** false when this chargeKey had already been charged. */
  charged: boolean;
  /** Credits the entry under this chargeKey took (this charge's, or the earlier one's). */
  amount: number;
  /** The requestKey of the charge that went through (this one's or an earlier one's). */
  requestKey: string | null;
}

export interface FundingState {
  creditBalance: number;
  /** Organization budget remaining; null when none is set. */
  budgetRemaining: number | null;
  /** Key-family budgets remaining; a family without an entry has no budget. */
  familyBudgets: Record<string, number>;
  /** What connected AI applications spent on the latest UTC day a charge of theirs named. */
  agentSpend: AgentSpendState | null;
}

const MAX_ATTEMPTS = 200;

/**
 * What the ledger's functions take first (a root's Deps is one): the stores, the clock that
 * dates the entries, and the heads the app has seen when it keeps them (a caller without
 * them reads every head afresh).
 */
export interface CreditDeps {
  readonly stores: CreditStores;
  readonly now: () => number;
  readonly ledgerHeads?: LedgerHeads;
}

/**
 * The ledger heads one app (or worker) has seen: per organization the head seq it probed or
 * appended last and the head entry it wrote last. Safe to compute from: an append after a stale
 * one conflicts on its seq and re-probes. Saves a read per charge, which on FerretDB is a scan of
 * the whole ledger. The composition root builds one (core/deps.ts, activities/contacts.ts); a
 * caller without one reads every head afresh.
 */
export class LedgerHeads {
  readonly seqs = new ChainHeads();
  private readonly entries = lazyLru<string, LedgerEntryRecord>({ max: 10_000 });

  /** The entry this app appended last (a head once; callers compare its seq with the known head). */
  entry(orgId: string): LedgerEntryRecord | undefined {
    return this.entries().get(orgId);
  }

  remember(entry: LedgerEntryRecord): void {
    this.entries().set(entry.chainId, entry);
  }

  forget(orgId: string): void {
    this.entries().delete(orgId);
    this.seqs.forget(orgId);
  }
}

/** The funding an entry leaves behind it: the state once it is made (a head's is the current state). */
export function stateOf(e: LedgerEntryRecord): FundingState {
  return {
    creditBalance: e.balanceAfter,
    budgetRemaining: e.orgBudgetAfter ?? null,
    familyBudgets: { ...(e.familyBudgetsAfter ?? {}) },
    agentSpend: e.agentSpendAfter ?? null,
  };
}

/** The head of the organization's ledger, opening it from the organization record if new. */
async function head(deps: CreditDeps, orgId: string): Promise<LedgerEntryRecord> {
  const store = deps.stores.credits;
  const heads = deps.ledgerHeads;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const org = await store.creditMirrorOf(orgId);
    if (!org) throw new Error(`organization ${orgId} does not exist`);
    const seq = await store.ledgerHeadSeq(orgId, org.creditSeq ?? -1, heads?.seqs);
    if (seq >= 0) {
      const entry = await store.readLedgerEntry(orgId, seq);
      if (entry) return entry;
      continue;
    }
    await store.appendLedgerEntry(
      orgId,
      0,
      {
        receiptId: newId('rcpt'),
        chargeKey: `opening:${orgId}`,
        kind: 'opening',
        orgId,
        familyId: null,
        operation: null,
        amount: 0,
        balanceAfter: org.creditBalance ?? 0,
        orgBudgetAfter: org.budgetRemaining ?? null,
        familyBudgetsAfter: {},
        createdAt: new Date(deps.now()),
      },
      heads?.seqs,
    );
  }
  throw unavailable();
}

function unavailable(): Problem {
  return new Problem('dependency_unavailable', 'The credit ledger is under heavy contention; retry with the same Idempotency-Key.', {
    headers: { 'Retry-After': '1' },
  });
}

/** The refusal for funding `amount` from `state`, or null when it can be funded. */
export function fundingRefusal(state: FundingState, familyId: string, amount: number, agent?: AgentSpender): Problem | null {
  // The allowance first: the person's own limit on this application says what to do about it.
  const allowance = agent ? allowanceRefusal(state.agentSpend, agent, amount) : null;
  if (allowance) return allowance;
  if (state.creditBalance < amount) {
    return new Problem('insufficient_credits', `This operation needs ${amount} credit(s); the organization has ${state.creditBalance}.`, {
      extensions: { required_credits: amount },
    });
  }
  const fam = state.familyBudgets[familyId];
  if (typeof fam === 'number' && fam < amount) {
    return new Problem('family_budget_exhausted', 'The spending budget set for this key family does not cover this operation.');
  }
  if (state.budgetRemaining !== null && state.budgetRemaining < amount) {
    return new Problem('organization_budget_exhausted', "The organization's spending budget does not cover this operation.");
  }
  return null;
}

/** The state after spending `amount`: every limit that applies goes down by it. */
export function afterSpending(state: FundingState, familyId: string, amount: number, agent?: AgentSpender): FundingState {
  const next: FundingState = {
    ...state,
    familyBudgets: { ...state.familyBudgets },
    creditBalance: state.creditBalance - amount,
    agentSpend: afterAgentSpend(state.agentSpend, agent, amount),
  };
  if (state.budgetRemaining !== null) next.budgetRemaining = state.budgetRemaining - amount;
  if (typeof state.familyBudgets[familyId] === 'number') next.familyBudgets[familyId] = state.familyBudgets[familyId] - amount;
  return next;
}

export async function fundingState(deps: CreditDeps, orgId: string): Promise<FundingState> {
  return stateOf(await head(deps, orgId));
}

/** Throws the 402 problem when `amount` cannot be funded now; charges nothing. */
export async function assertCanFund(deps: CreditDeps, input: FundingInput): Promise<void> {
  if (input.amount <= 0) return;
  const heads = deps.ledgerHeads;
  // The last head this app saw answers "yes" cheaply (the charge re-checks atomically);
  // a "no" is confirmed on the verified head, which sees other processes' grants.
  const hinted = heads?.seqs.known(input.orgId);
  const fromHint = hinted !== undefined ? await deps.stores.credits.readLedgerEntry(input.orgId, hinted) : null;
  if (fromHint && !fundingRefusal(stateOf(fromHint), input.familyId, input.amount, input.agent)) return;
  const refusal = fundingRefusal(await fundingState(deps, input.orgId), input.familyId, input.amount, input.agent);
  if (refusal) throw refusal;
}

/**
 * assertCanFund for work paid under `chargeKey`: no refusal when that charge was already taken
 * (a retry of a request that paid before it could answer must find its receipt, not a 402).
 */
export async function assertCanFundUnlessCharged(deps: CreditDeps, input: FundingInput, chargeKey: string): Promise<void> {
  try {
    await assertCanFund(deps, input);
  } catch (err) {
    if (err instanceof Problem && err.status === 402 && (await findCharge(deps.stores, chargeKey))) return;
    throw err;
  }
}

function assertAmount(amount: number): void {
  if (!Number.isInteger(amount) || amount < 0) throw new Error('amount must be a non-negative integer');
}

type Movement = Omit<
  LedgerEntryRecord,
  '_id' | 'chainId' | 'seq' | 'receiptId' | 'balanceAfter' | 'orgBudgetAfter' | 'familyBudgetsAfter' | 'agentSpendAfter' | 'createdAt'
>;

/** The ledger entry's fields naming the connected application a charge was made for. */
function spenderFields(agent: AgentSpender | undefined): Partial<Movement> {
  return agent ? { agentGrantId: agent.grantId, agentClientId: agent.clientId, agentClientName: agent.clientName, agentDay: agent.day } : {};
}

/**
 * Appends one movement computed from the current head: `next` returns the state after it or
 * throws a refusal. Returns the entry, or the earlier entry with the same chargeKey.
 */
function append(
  deps: CreditDeps,
  orgId: string,
  movement: Movement,
  next: (s: FundingState) => FundingState,
  patch?: MovementPatch,
): Promise<{ entry: LedgerEntryRecord; fresh: boolean }> {
  // One append of an organization at a time from this app: concurrent writers of one app would
  // only race each other for the same seq (each lost race costs re-reads). A caller without the
  // app's heads leaves every race to the store.
  const appended = () => appendNow(deps, orgId, { movement, next, patch });
  return deps.ledgerHeads ? deps.ledgerHeads.seqs.turns.inTurn(`ledger:${orgId}`, appended) : appended();
}

/** Fields of the movement known only once the head is read (a bulk charge's amount). */
type MovementPatch = (before: FundingState, after: FundingState) => Partial<Movement>;

/** One movement: its fields, the funding state after it (or its refusal), and what only the head tells. */
interface LedgerChange {
  movement: Movement;
  next: (s: FundingState) => FundingState;
  patch?: MovementPatch;
}

async function appendNow(deps: CreditDeps, orgId: string, { movement, next, patch }: LedgerChange): Promise<{ entry: LedgerEntryRecord; fresh: boolean }> {
  const store = deps.stores.credits;
  const heads = deps.ledgerHeads;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    // Trust the head this app saw last: a stale one only costs a conflict and a re-probe.
    const hinted = heads?.seqs.known(orgId);
    const cached = heads?.entry(orgId);
    const fromHint = hinted === undefined ? null : cached && cached.seq === hinted ? cached : await store.readLedgerEntry(orgId, hinted);
    const current = fromHint ?? (await head(deps, orgId));
    let after: FundingState;
    try {
      after = next(stateOf(current));
    } catch (err) {
      // Refuse only on the verified head: another process may have granted credits since.
      if (!fromHint) throw err;
      heads?.forget(orgId);
      continue;
    }
    const receiptId = newId('rcpt');
    const doc = {
      ...movement,
      ...(patch ? patch(stateOf(current), after) : {}),
      receiptId,
      balanceAfter: after.creditBalance,
      orgBudgetAfter: after.budgetRemaining,
      familyBudgetsAfter: after.familyBudgets,
      ...(after.agentSpend ? { agentSpendAfter: after.agentSpend } : {}),
      createdAt: new Date(deps.now()),
    };
    const outcome = await store.appendLedgerEntry(orgId, current.seq + 1, doc, heads?.seqs);
    if (outcome === 'appended') {
      const entry: LedgerEntryRecord = { ...doc, _id: `${orgId}:${current.seq + 1}`, chainId: orgId, seq: current.seq + 1 };
      heads?.remember(entry);
      await mirror(store, orgId, entry);
      return { entry, fresh: true };
    }
    // Either the seq was taken (someone appended) or the chargeKey was (already charged).
    const earlier = await store.ledgerEntryOfChargeKey(movement.chargeKey);
    if (earlier) return { entry: earlier, fresh: false };
    heads?.forget(orgId);
  }
  throw unavailable();
}

/** Best-effort copy of the head onto the organization, for readers of its `creditBalance`. */
async function mirror(store: CreditStores['credits'], orgId: string, e: LedgerEntryRecord): Promise<void> {
  await store.mirrorCreditHead(orgId, { seq: e.seq, balance: e.balanceAfter, budgetRemaining: e.orgBudgetAfter });
}

/**
 * Debits `amount` once per `chargeKey`: atomic, never below zero or below any budget, with a
 * ledger entry whose receipt id is returned. Throws 402 (nothing charged) when unfundable.
 */
export async function charge(deps: CreditDeps, input: ChargeInput): Promise<ChargeResult> {
  assertAmount(input.amount);
  try {
    // No look-up first: a repeated chargeKey is refused by its unique index at the append.
    const { entry, fresh } = await append(
      deps,
      input.orgId,
      {
        kind: 'charge',
        chargeKey: input.chargeKey,
        orgId: input.orgId,
        familyId: input.familyId,
        operation: input.operation,
        amount: input.amount,
        ...(input.requestKey ? { requestKey: input.requestKey } : {}),
        ...spenderFields(input.agent),
      },
      (s) => {
        const refusal = fundingRefusal(s, input.familyId, input.amount, input.agent);
        if (refusal) throw refusal;
        return afterSpending(s, input.familyId, input.amount, input.agent);
      },
    );
    if (fresh) creditsCharged.inc({ operation: input.operation }, input.amount);
    return { receiptId: entry.receiptId, charged: fresh, amount: entry.amount, requestKey: entry.requestKey ?? null };
  } catch (err) {
    // A retry of a charge that went through, now that funds ran out: it is still charged.
    if (err instanceof Problem && err.status === 402) {
      const earlier = await deps.stores.credits.ledgerEntryOfChargeKey(input.chargeKey);
      if (earlier) return { receiptId: earlier.receiptId, charged: false, amount: earlier.amount, requestKey: earlier.requestKey ?? null };
    }
    throw err;
  }
}

export interface BulkChargeInput {
  orgId: string;
  familyId: string;
  operation: string;
  /** Unique name of this charge; a repeat returns the first one, whatever the balance is now. */
  chargeKey: string;
  /** Credits per unit. */
  unitPrice: number;
  /** Units wanted; as many as the credits, budgets and allowance cover are charged, in one entry. */
  units: number;
  agent?: AgentSpender;
}

export interface BulkChargeResult {
  receiptId: string;
  /** Units charged (0..units): the first ones asked for are the ones paid. */
  units: number;
  /** false when this chargeKey had already been charged. */
  charged: boolean;
}

/** How many units of `unitPrice` the funding state covers (credits, every budget and the allowance that apply). */
export function fundableUnits(state: FundingState, familyId: string, unitPrice: number, wanted: number, agent?: AgentSpender): number {
  if (unitPrice <= 0) return wanted;
  let credits = state.creditBalance;
  const allowance = agent ? allowanceLeft(state.agentSpend, agent) : null;
  if (allowance !== null) credits = Math.min(credits, allowance);
  if (state.budgetRemaining !== null) credits = Math.min(credits, state.budgetRemaining);
  const fam = state.familyBudgets[familyId];
  if (typeof fam === 'number') credits = Math.min(credits, fam);
  return Math.max(0, Math.min(wanted, Math.floor(credits / unitPrice)));
}

/**
 * Charges up to `units` units in ONE ledger entry: all of them when funds allow, otherwise as
 * many as the credits and budgets cover (possibly none: the entry then records 0, so a retry
 * keeps the same answer even if credits arrive in between). Idempotent per `chargeKey`.
 */
export async function chargeUpTo(deps: CreditDeps, input: BulkChargeInput): Promise<BulkChargeResult> {
  assertAmount(input.units);
  assertAmount(input.unitPrice);
  const unitsFor = (s: FundingState) => fundableUnits(s, input.familyId, input.unitPrice, input.units, input.agent);
  const { entry, fresh } = await append(
    deps,
    input.orgId,
    {
      kind: 'charge',
      chargeKey: input.chargeKey,
      orgId: input.orgId,
      familyId: input.familyId,
      operation: input.operation,
      amount: 0,
      ...spenderFields(input.agent),
    },
    (s) => afterSpending(s, input.familyId, unitsFor(s) * input.unitPrice, input.agent),
    (before) => ({ amount: unitsFor(before) * input.unitPrice, units: unitsFor(before) }),
  );
  const units = entry.units ?? (input.unitPrice > 0 ? entry.amount / input.unitPrice : 0);
  if (fresh && entry.amount > 0) creditsCharged.inc({ operation: input.operation }, entry.amount);
  return { receiptId: entry.receiptId, units, charged: fresh };
}

/** The charge made under `chargeKey`, if any (a retry after a crash finds it here). */
export async function findCharge(stores: CreditStores, chargeKey: string): Promise<{ receiptId: string; amount: number } | null> {
  const e = await stores.credits.chargeEntryOfChargeKey(chargeKey);
  return e ? { receiptId: e.receiptId, amount: e.amount } : null;
}

export async function grantCredits(deps: CreditDeps, orgId: string, amount: number): Promise<{ org_id: string; balance: number }> {
  assertAmount(amount);
  const { entry } = await append(deps, orgId, { kind: 'grant', chargeKey: `grant:${newId('rcpt')}`, orgId, familyId: null, operation: null, amount }, (s) => ({
    ...s,
    creditBalance: s.creditBalance + amount,
  }));
  return { org_id: orgId, balance: entry.balanceAfter };
}

export async function creditBalance(deps: CreditDeps, orgId: string): Promise<number> {
  return (await fundingState(deps, orgId)).creditBalance;
}

/**
 * The balance as it stands now, for answers that report it: the head entry this app wrote
 * last when a probe finds nothing after it (two look-ups by id), else the head read afresh.
 */
export async function currentCreditBalance(deps: CreditDeps, orgId: string): Promise<number> {
  const heads = deps.ledgerHeads;
  const held = heads?.entry(orgId);
  if (held && (await deps.stores.credits.ledgerHeadSeq(orgId, held.seq, heads?.seqs)) === held.seq) return held.balanceAfter;
  return creditBalance(deps, orgId);
}

export interface BudgetView {
  org_id: string;
  family_id: string | null;
  /** Remaining spend under this budget; null means no budget is set. */
  remaining: number | null;
}

/** Sets (or with `amount: null` clears) the remaining organization or key-family budget. */
export async function setBudget(deps: CreditDeps, input: { orgId: string; familyId?: string; amount: number | null }): Promise<BudgetView> {
  if (input.amount !== null) assertAmount(input.amount);
  if (input.familyId !== undefined && !/^kf_[0-9A-Za-z]{8,64}$/.test(input.familyId)) throw new Error('family must be a key family id (kf_…)');
  const { entry } = await append(
    deps,
    input.orgId,
    { kind: 'budget', chargeKey: `budget:${newId('rcpt')}`, orgId: input.orgId, familyId: input.familyId ?? null, operation: null, amount: input.amount ?? 0 },
    (s) => {
      const next: FundingState = { ...s, familyBudgets: { ...s.familyBudgets } };
      if (input.familyId === undefined) next.budgetRemaining = input.amount;
      else if (input.amount === null) delete next.familyBudgets[input.familyId];
      else next.familyBudgets[input.familyId] = input.amount;
      return next;
    },
  );
  const s = stateOf(entry);
  return {
    org_id: input.orgId,
    family_id: input.familyId ?? null,
    remaining: input.familyId === undefined ? s.budgetRemaining : (s.familyBudgets[input.familyId] ?? null),
  };
}

export async function creditSummary(
  deps: CreditDeps,
  orgId: string,
): Promise<{ org_id: string; balance: number; organization_budget: number | null; family_budgets: Record<string, number> }> {
  const s = await fundingState(deps, orgId);
  return { org_id: orgId, balance: s.creditBalance, organization_budget: s.budgetRemaining, family_budgets: s.familyBudgets };
}
