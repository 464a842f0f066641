import { Schema, model } from 'mongoose';

/**
 * The credit ledger: one append-only chain per organization (see chain.ts), `_id =
 * <org_id>:<seq>`. Each entry records one movement (opening, grant, charge, budget change)
 * and the organization's funding state after it; the head entry is the current balance and
 * budgets. `chargeKey` is unique: a retried charge finds its first entry instead of paying
 * twice. The organization document's `creditBalance` is a mirror for display.
 */
const ledgerEntrySchema = new Schema(
  {
    _id: { type: String, required: true },
    chainId: { type: String, required: true },
    seq: { type: Number, required: true },
    receiptId: { type: String, required: true, unique: true },
    chargeKey: { type: String, required: true, unique: true },
    kind: { type: String, enum: ['opening', 'grant', 'charge', 'budget'], required: true },
    orgId: { type: String, required: true },
    familyId: { type: String, default: null },
    operation: { type: String, default: null },
    amount: { type: Number, required: true },
    /** Units paid by a bulk charge (`amount` = units × unit price); absent on other entries. */
    units: { type: Number, default: undefined },
    /** The request that paid, when the charge is keyed by what is bought rather than by the request. */
    requestKey: { type: String, default: undefined },
    balanceAfter: { type: Number, required: true },
    orgBudgetAfter: { type: Number, default: null },
    familyBudgetsAfter: { type: Schema.Types.Mixed, default: {} },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
ledgerEntrySchema.index({ orgId: 1, seq: -1 });
export const LedgerEntry = model('LedgerEntry', ledgerEntrySchema, 'credit_ledger');
