/**
 * The console in Chromium from an admin's first sign-in to signing out, and every page's layout
 * with a busy organization at 375, 1,280 and 1,440 px.
 *
 * Each file below is a describe block of its own with its own API, database and hooks; run as
 * one jest file, they load the app's modules and launch Chromium once. One of them alone:
 * `npx jest test/e2e/consoleWalkthrough.test.ts -t <name>`.
 */
describe('consoleBrowser', () => {
  require('./consoleBrowser.cases');
});
describe('consoleLayoutBrowser', () => {
  require('./consoleLayoutBrowser.cases');
});
