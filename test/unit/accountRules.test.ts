/**
 * Account and OAuth rules: agent allowance, browser origins, token fetches, mail messages and
 * mailbox limits, OAuth and sign-in rules, one-time links, passkeys, purpose keys and the second
 * factor.
 *
 * Each file below is a describe block of its own with its own hooks; run as one jest file, they
 * load the modules they share once instead of once per file, which is most of a short file's cost.
 * One of them alone: `npx jest test/unit/accountRules.test.ts -t <name>`.
 */
describe('agentAllowance', () => {
  require('./agentAllowance.cases');
});
describe('browserOrigins', () => {
  require('./browserOrigins.cases');
});
describe('fetchToken', () => {
  require('./fetchToken.cases');
});
describe('mailMessages', () => {
  require('./mailMessages.cases');
});
describe('mailboxLimits', () => {
  require('./mailboxLimits.cases');
});
describe('oauthRules', () => {
  require('./oauthRules.cases');
});
describe('oauthSignInRules', () => {
  require('./oauthSignInRules.cases');
});
describe('oneTimeLinks', () => {
  require('./oneTimeLinks.cases');
});
describe('passkeys', () => {
  require('./passkeys.cases');
});
describe('purposeKeys', () => {
  require('./purposeKeys.cases');
});
describe('secondFactor', () => {
  require('./secondFactor.cases');
});
