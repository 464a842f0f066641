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
    /** Credits connected AI applications spent on the latest UTC day (agentAllowance.ts). */
    agentSpendAfter: { type: Schema.Types.Mixed, default: undefined },
    /** A connected application's charge: its grant, client, name and UTC day. */
    agentGrantId: { type: String, default: undefined },
    agentClientId: { type: String, default: undefined },
    agentClientName: { type: String, default: undefined },
    agentDay: { type: String, default: undefined },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
ledgerEntrySchema.index({ orgId: 1, seq: -1 });
ledgerEntrySchema.index({ agentGrantId: 1, agentDay: 1 }, { sparse: true });
export const LedgerEntry = model('LedgerEntry', ledgerEntrySchema, 'credit_ledger');
