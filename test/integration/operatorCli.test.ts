/**
 * The operator CLI as a process: its entry, its exit codes and output, and `webhook listen`.
 *
 * Each file below is a describe block of its own with its own API, database and hooks; run as one
 * jest file, they load the app's modules once. One of them alone:
 * `npx jest test/integration/operatorCli.test.ts -t <name>`.
 */
describe('adminCli', () => {
  require('./adminCli.cases');
});
describe('webhookListen', () => {
  require('./webhookListen.cases');
});
