/**
 * Account pages in Chromium: invitations and resets, the second factor, passkeys.
 *
 * Each file below is a describe block of its own with its own stack and hooks; run as one jest
 * file, they load the app's modules once instead of once per file. One of them alone:
 * `npx jest test/e2e/accountPages.test.ts -t <name>`.
 */
describe('accountsBrowser', () => {
  require('./accountsBrowser.cases');
});
describe('secondFactorBrowser', () => {
  require('./secondFactorBrowser.cases');
});
describe('passkeysBrowser', () => {
  require('./passkeysBrowser.cases');
});
