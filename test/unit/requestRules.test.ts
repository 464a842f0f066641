/**
 * Request rules: access log fields, admission blocks, credentials and fields, gathered reads, key
 * use, matched routes and remembered matches, the operation executor, the request gate, the request path, request URLs, tool paths, turns
 * and search scheduling.
 *
 * Each file below is a describe block of its own with its own hooks; run as one jest file, they
 * load the modules they share once instead of once per file, which is most of a short file's cost.
 * One of them alone: `npx jest test/unit/requestRules.test.ts -t <name>`.
 */
describe('accessLogFields', () => {
  require('./accessLogFields.cases');
});
describe('admissionBlocks', () => {
  require('./admissionBlocks.cases');
});
describe('apiCore', () => {
  require('./apiCore.cases');
});
describe('apiFields', () => {
  require('./apiFields.cases');
});
describe('gatheredReads', () => {
  require('./gatheredReads.cases');
});
describe('keyUse', () => {
  require('./keyUse.cases');
});
describe('matchedRoute', () => {
  require('./matchedRoute.cases');
});
describe('rememberedMatches', () => {
  require('./rememberedMatches.cases');
});
describe('newKeys', () => {
  require('./newKeys.cases');
});
describe('operationExecutor', () => {
  require('./operationExecutor.cases');
});
describe('requestGate', () => {
  require('./requestGate.cases');
});
describe('requestPath', () => {
  require('./requestPath.cases');
});
describe('requestUrl', () => {
  require('./requestUrl.cases');
});
describe('searchScheduling', () => {
  require('./searchScheduling.cases');
});
describe('toolPaths', () => {
  require('./toolPaths.cases');
});
describe('turns', () => {
  require('./turns.cases');
});
