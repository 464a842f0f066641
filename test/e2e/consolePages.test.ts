/**
 * Console pages in Chromium: grants, reads, limits and budgets, webhooks, jobs and money.
 *
 * Each file below is a describe block of its own with its own API, database and hooks; run
 * as one jest file, they load the app's modules once instead of once per file, which is most
 * of a short file's cost. One of them alone: `npx jest test/e2e/consolePages.test.ts -t <name>`.
 */
describe('consoleGrantsBrowser', () => {
  require('./consoleGrantsBrowser.cases');
});
describe('consoleReadsBrowser', () => {
  require('./consoleReadsBrowser.cases');
});
describe('consoleLimitsBrowser', () => {
  require('./consoleLimitsBrowser.cases');
});
describe('consoleWebhooksBrowser', () => {
  require('./consoleWebhooksBrowser.cases');
});
describe('consoleActivityBrowser', () => {
  require('./consoleActivityBrowser.cases');
});
