import { Schema, model } from 'mongoose';

/**
 * One ledger entry per charge. `chargeKey` is the caller's unique name for the charge (an
 * idempotency key, or `job:<job_id>:person:<person_id>`); the unique index makes a retried
 * charge find the first one instead of paying twice.
 */
const ledgerEntrySchema = new Schema(
  {
    _id: { type: String, required: true },
    chargeKey: { type: String, required: true, unique: true },
    orgId: { type: String, required: true, index: true },
    familyId: { type: String, required: true },
    operation: { type: String, required: true },
    amount: { type: Number, required: true },
    /** `pending` between claim and debit; `settled` once the balance was debited. */
    state: { type: String, enum: ['pending', 'settled'], required: true },
    settledAt: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false },
);
export const LedgerEntry = model('LedgerEntry', ledgerEntrySchema, 'credit_ledger');
