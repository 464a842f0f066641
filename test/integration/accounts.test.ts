/**
 * Console accounts: invitations and their answers, the last admin, passkeys, the operator's user
 * commands and the mail they send.
 *
 * Each file below is a describe block of its own with its own API, database and hooks; run
 * as one jest file, they load the app's modules once instead of once per file, which is most
 * of a short file's cost. One of them alone: `npx jest test/integration/accounts.test.ts -t <name>`.
 */
describe('invitationAnswers', () => {
  require('./invitationAnswers.cases');
});
describe('invitations', () => {
  require('./invitations.cases');
});
describe('lastAdminConcurrency', () => {
  require('./lastAdminConcurrency.cases');
});
describe('mailOutbox', () => {
  require('./mailOutbox.cases');
});
describe('passkeyCeremonies', () => {
  require('./passkeyCeremonies.cases');
});
describe('passkeySignInHttp', () => {
  require('./passkeySignInHttp.cases');
});
describe('userAdminCli', () => {
  require('./userAdminCli.cases');
});
