import { newId } from '../ids';
import { creditsCharged } from '../observability/metrics';
import { Problem } from '../problems';
import { Organization } from '../tenancy/models';
import { LedgerEntry } from './models';

/**
 * Credits and budgets (SPEC 7.3, DECISIONS.md "Paid operations"). The balance, the
 * organization budget and the key-family budgets live on the organization document, so a
 * charge is ONE conditional update of one document: FerretDB has no transactions. The
 * filter re-checks every limit the update decrements, so nothing can go below zero.
 *
 * Family budgets are kept as `familyBudgets.<family_id>` on the organization through the
 * driver (the tenancy schema does not declare them; mongoose would drop unknown paths).
 */

export interface FundingInput {
  orgId: string;
  familyId: string;
  amount: number;
}

export interface ChargeInput extends FundingInput {
  operation: string;
  chargeKey: string;
}

export interface ChargeResult {
  receiptId: string;
  /** false when this chargeKey had already been charged (or the amount was 0). */
  charged: boolean;
}

interface FundingState {
  creditBalance: number;
  budgetRemaining: number | null;
  familyBudgets?: Record<string, number>;
  chargeMarks?: Record<string, unknown>;
}

async function fundingState(orgId: string): Promise<FundingState> {
  const doc = (await Organization.collection.findOne(
    { _id: orgId as never },
    { projection: { creditBalance: 1, budgetRemaining: 1, familyBudgets: 1, chargeMarks: 1 } },
  )) as FundingState | null;
  if (!doc) throw new Error(`organization ${orgId} does not exist`);
  return doc;
}

function familyBudget(state: FundingState, familyId: string): number | null {
  const v = state.familyBudgets?.[familyId];
  return typeof v === 'number' ? v : null;
}

/** The refusal for funding `amount` from `state`, or null when it can be funded. */
export function fundingRefusal(state: FundingState, familyId: string, amount: number): Problem | null {
  if ((state.creditBalance ?? 0) < amount) {
    return new Problem('insufficient_credits', `This operation needs ${amount} credit(s); the organization has ${state.creditBalance ?? 0}.`, {
      extensions: { required_credits: amount },
    });
  }
  const fam = familyBudget(state, familyId);
  if (fam !== null && fam < amount) {
    return new Problem('family_budget_exhausted', 'The spending budget set for this key family does not cover this operation.');
  }
  if (state.budgetRemaining !== null && state.budgetRemaining !== undefined && state.budgetRemaining < amount) {
    return new Problem('organization_budget_exhausted', "The organization's spending budget does not cover this operation.");
  }
  return null;
}

/** Throws the 402 problem when `amount` cannot be funded now; charges nothing. */
export async function assertCanFund(input: FundingInput): Promise<void> {
  if (input.amount <= 0) return;
  const refusal = fundingRefusal(await fundingState(input.orgId), input.familyId, input.amount);
  if (refusal) throw refusal;
}

function assertAmount(amount: number): void {
  if (!Number.isInteger(amount) || amount < 0) throw new Error('amount must be a non-negative integer');
}

/**
 * Debits `amount` exactly once per `chargeKey`. Steps, each safe to repeat after a crash:
 * 1. claim a ledger entry (unique chargeKey) → its receipt id is the charge's name;
 * 2. one conditional update debits balance and budgets AND sets `chargeMarks.<receipt>`,
 *    refusing when the mark is already there, so a retry can never debit twice;
 * 3. settle the ledger entry, then drop the mark.
 * A retry that finds the mark knows the debit happened and only finishes steps 3.
 */
export async function charge(input: ChargeInput): Promise<ChargeResult> {
  assertAmount(input.amount);
  const existing = await LedgerEntry.findOne({ chargeKey: input.chargeKey }).lean();
  if (existing?.state === 'settled') return { receiptId: existing._id, charged: false };
  let receiptId = existing?._id;
  if (!receiptId) {
    const claimed = await LedgerEntry.findOneAndUpdate(
      { chargeKey: input.chargeKey },
      {
        $setOnInsert: {
          _id: newId('rcpt'), orgId: input.orgId, familyId: input.familyId, operation: input.operation,
          amount: input.amount, state: 'pending', settledAt: null,
        },
      },
      { upsert: true, returnDocument: 'after' },
    )
      .lean()
      .catch(async (err) => {
        // Two claims raced on the unique index: the other one won, use its entry.
        const again = await LedgerEntry.findOne({ chargeKey: input.chargeKey }).lean();
        if (!again) throw err;
        return again;
      });
    if (claimed!.state === 'settled') return { receiptId: claimed!._id, charged: false };
    receiptId = claimed!._id;
  }
  const mark = `chargeMarks.${receiptId}`;
  for (let attempt = 0; attempt < 20; attempt++) {
    const state = await fundingState(input.orgId);
    if (state.chargeMarks?.[receiptId] !== undefined) {
      await settle(input.orgId, receiptId);
      return { receiptId, charged: false };
    }
    if (input.amount === 0) {
      await settle(input.orgId, receiptId);
      return { receiptId, charged: false };
    }
    const refusal = fundingRefusal(state, input.familyId, input.amount);
    if (refusal) {
      await LedgerEntry.deleteOne({ _id: receiptId, state: 'pending' });
      throw refusal;
    }
    const filter: Record<string, unknown> = { _id: input.orgId, creditBalance: { $gte: input.amount }, [mark]: { $exists: false } };
    const inc: Record<string, number> = { creditBalance: -input.amount };
    const fam = familyBudget(state, input.familyId);
    if (fam === null) {
      filter[`familyBudgets.${input.familyId}`] = { $exists: false };
    } else {
      filter[`familyBudgets.${input.familyId}`] = { $gte: input.amount };
      inc[`familyBudgets.${input.familyId}`] = -input.amount;
    }
    if (state.budgetRemaining === null || state.budgetRemaining === undefined) {
      filter.budgetRemaining = null;
    } else {
      filter.budgetRemaining = { $gte: input.amount };
      inc.budgetRemaining = -input.amount;
    }
    const res = await Organization.collection.updateOne(filter as never, { $inc: inc, $set: { [mark]: true } } as never);
    if (res.modifiedCount === 1) {
      creditsCharged.inc({ operation: input.operation }, input.amount);
      await settle(input.orgId, receiptId);
      return { receiptId, charged: true };
    }
    // Someone else changed the document between read and write: look again.
  }
  throw new Problem('dependency_unavailable', 'The charge could not be completed; retry with the same Idempotency-Key.', {
    headers: { 'Retry-After': '1' },
  });
}

async function settle(orgId: string, receiptId: string): Promise<void> {
  await LedgerEntry.updateOne({ _id: receiptId, state: 'pending' }, { $set: { state: 'settled', settledAt: new Date() } });
  await Organization.collection.updateOne({ _id: orgId as never }, { $unset: { [`chargeMarks.${receiptId}`]: '' } } as never);
}

/** The settled charge made under `chargeKey`, if any (recovery after a crash). */
export async function findCharge(chargeKey: string): Promise<{ receiptId: string; amount: number } | null> {
  const e = await LedgerEntry.findOne({ chargeKey, state: 'settled' }).lean();
  return e ? { receiptId: e._id, amount: e.amount } : null;
}

export async function grantCredits(orgId: string, amount: number): Promise<{ org_id: string; balance: number }> {
  assertAmount(amount);
  const res = await Organization.collection.updateOne({ _id: orgId as never }, { $inc: { creditBalance: amount } });
  if (res.matchedCount !== 1) throw new Error(`organization ${orgId} does not exist`);
  return { org_id: orgId, balance: await creditBalance(orgId) };
}

export async function creditBalance(orgId: string): Promise<number> {
  return (await fundingState(orgId)).creditBalance ?? 0;
}

export interface BudgetView {
  org_id: string;
  family_id: string | null;
  /** Remaining spend under this budget; null means no budget is set. */
  remaining: number | null;
}

/** Sets (or with `amount: null` clears) the remaining organization or key-family budget. */
export async function setBudget(input: { orgId: string; familyId?: string; amount: number | null }): Promise<BudgetView> {
  if (input.amount !== null) assertAmount(input.amount);
  const path = input.familyId ? `familyBudgets.${input.familyId}` : 'budgetRemaining';
  if (input.familyId && !/^kf_[0-9A-Za-z]{8,64}$/.test(input.familyId)) throw new Error('--family must be a key family id (kf_…)');
  const update = input.amount === null
    ? (input.familyId ? { $unset: { [path]: '' } } : { $set: { [path]: null } })
    : { $set: { [path]: input.amount } };
  const res = await Organization.collection.updateOne({ _id: input.orgId as never }, update as never);
  if (res.matchedCount !== 1) throw new Error(`organization ${input.orgId} does not exist`);
  return budgetView(input.orgId, input.familyId);
}

export async function budgetView(orgId: string, familyId?: string): Promise<BudgetView> {
  const state = await fundingState(orgId);
  return {
    org_id: orgId,
    family_id: familyId ?? null,
    remaining: familyId ? familyBudget(state, familyId) : (state.budgetRemaining ?? null),
  };
}

export async function creditSummary(orgId: string): Promise<{ org_id: string; balance: number; organization_budget: number | null; family_budgets: Record<string, number> }> {
  const s = await fundingState(orgId);
  return { org_id: orgId, balance: s.creditBalance ?? 0, organization_budget: s.budgetRemaining ?? null, family_budgets: s.familyBudgets ?? {} };
}
