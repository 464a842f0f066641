import { Schema, type Connection } from 'mongoose';
import { boundModel } from '../store/boundModel';

/** Credits each application spent on one UTC day, as the ledger's head records them (agentAllowance.ts reads it). */
export interface AgentSpendState {
  day: string;
  byGrant: Record<string, number>;
}

/** An entry of an organization's ledger chain (chain.ts), `_id = <org_id>:<seq>`: one movement and the funding state after it. */
export interface LedgerEntryRecord {
  _id: string;
  chainId: string;
  seq: number;
  receiptId: string;
  chargeKey: string;
  kind: 'opening' | 'grant' | 'charge' | 'budget';
  orgId: string;
  familyId: string | null;
  operation: string | null;
  amount: number;
  units?: number;
  requestKey?: string;
  balanceAfter: number;
  orgBudgetAfter: number | null;
  familyBudgetsAfter: Record<string, number>;
  /** Credits connected AI applications spent on the latest day (agentAllowance.ts); absent until one spends. */
  agentSpendAfter?: AgentSpendState;
  /** On a tool call's charge for a person's connected application: its grant, client, name and UTC day. */
  agentGrantId?: string;
  agentClientId?: string;
  agentClientName?: string;
  agentDay?: string;
  createdAt: Date;
}

/**
 * The credit ledger: one append-only chain per organization (see chain.ts), `_id =
 * <org_id>:<seq>`. Each entry records one movement (opening, grant, charge, budget change)
 * and the organization's funding state after it; the head entry is the current balance and
 * budgets. `chargeKey` is unique: a retried charge finds its first entry instead of paying
 * twice. The organization document's `creditBalance` is a mirror for display.
 */
const ledgerEntrySchema = new Schema<LedgerEntryRecord>(
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

/** The area's models on the root's connection. */
export function creditModels(connection: Connection) {
  return {
    ledger: boundModel<LedgerEntryRecord>(connection, 'LedgerEntry', ledgerEntrySchema, 'credit_ledger'),
  };
}
