// The keyed queue lives in core/inTurn.ts, shared with the credit ledger.
export { inTurn } from '../inTurn';
