/**
 * Paid operations and money: ledger entries, the oracles of each paid operation and abuse of them.
 *
 * Each file below is a describe block of its own with its own API, database and hooks; run
 * as one jest file, they load the app's modules once instead of once per file, which is most
 * of a short file's cost. One of them alone: `npx jest test/integration/paidOperations.test.ts -t <name>`.
 */
describe('ledgerEntries', () => {
  require('./ledgerEntries.cases');
});
describe('moneyAndAbuse', () => {
  require('./moneyAndAbuse.cases');
});
describe('paidOperationOracles', () => {
  require('./paidOperationOracles.cases');
});
describe('talentPaidOperations', () => {
  require('./talentPaidOperations.cases');
});
