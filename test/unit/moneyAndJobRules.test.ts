/**
 * Money and job rules: audit actions, the contact provider, credit chains and talent credits,
 * duplicate keys, grouped inserts, ISO instants, job rules, progress, retention and why a local
 * service stopped.
 *
 * Each file below is a describe block of its own with its own hooks; run as one jest file, they
 * load the modules they share once instead of once per file, which is most of a short file's cost.
 * One of them alone: `npx jest test/unit/moneyAndJobRules.test.ts -t <name>`.
 */
describe('auditActions', () => {
  require('./auditActions.cases');
});
describe('contactProvider', () => {
  require('./contactProvider.cases');
});
describe('creditChain', () => {
  require('./creditChain.cases');
});
describe('duplicateKey', () => {
  require('./duplicateKey.cases');
});
describe('groupedInserts', () => {
  require('./groupedInserts.cases');
});
describe('isoInstant', () => {
  require('./isoInstant.cases');
});
describe('jobRules', () => {
  require('./jobRules.cases');
});
describe('progress', () => {
  require('./progress.cases');
});
describe('retentionRules', () => {
  require('./retentionRules.cases');
});
describe('stopReason', () => {
  require('./stopReason.cases');
});
describe('talentCredits', () => {
  require('./talentCredits.cases');
});
