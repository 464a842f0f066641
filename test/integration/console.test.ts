/**
 * Console pages over HTTP: grants, reads and webhooks.
 *
 * Each file below is a describe block of its own with its own API, database and hooks; run
 * as one jest file, they load the app's modules once instead of once per file, which is most
 * of a short file's cost. One of them alone: `npx jest test/integration/console.test.ts -t <name>`.
 */
describe('consoleGrants', () => {
  require('./consoleGrants.cases');
});
describe('consoleReads', () => {
  require('./consoleReads.cases');
});
describe('consoleWebhooks', () => {
  require('./consoleWebhooks.cases');
});
