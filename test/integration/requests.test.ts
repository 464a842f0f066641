/**
 * A request's way in: credentials and scopes, bodies, parser errors, the request gate, request
 * logs, key use and the audit log.
 *
 * Each file below is a describe block of its own with its own API, database and hooks; run
 * as one jest file, they load the app's modules once instead of once per file, which is most
 * of a short file's cost. One of them alone: `npx jest test/integration/requests.test.ts -t <name>`.
 */
describe('apiCore', () => {
  require('./apiCore.cases');
});
describe('auditEvents', () => {
  require('./auditEvents.cases');
});
describe('auditLog', () => {
  require('./auditLog.cases');
});
describe('httpParserErrors', () => {
  require('./httpParserErrors.cases');
});
describe('keyUse', () => {
  require('./keyUse.cases');
});
describe('newKeys', () => {
  require('./newKeys.cases');
});
describe('requestBodies', () => {
  require('./requestBodies.cases');
});
describe('requestGate', () => {
  require('./requestGate.cases');
});
describe('requestLogs', () => {
  require('./requestLogs.cases');
});
describe('scopeChain', () => {
  require('./scopeChain.cases');
});
