/**
 * The tool server over HTTP: its protocol, tools, outputs, allowances and browser clients, and
 * the conformance suite.
 *
 * Each file below is a describe block of its own with its own API, database and hooks; run
 * as one jest file, they load the app's modules once instead of once per file, which is most
 * of a short file's cost. One of them alone: `npx jest test/integration/mcp.test.ts -t <name>`.
 */
describe('browserClients', () => {
  require('./browserClients.cases');
});
describe('mcpAllowance', () => {
  require('./mcpAllowance.cases');
});
describe('mcpClientCredentialsSnippet', () => {
  require('./mcpClientCredentialsSnippet.cases');
});
describe('mcpConformance', () => {
  require('./mcpConformance.cases');
});
describe('mcpJobTools', () => {
  require('./mcpJobTools.cases');
});
describe('mcpKnownClientFailures', () => {
  require('./mcpKnownClientFailures.cases');
});
describe('mcpPersonRate', () => {
  require('./mcpPersonRate.cases');
});
describe('mcpProtocolRevisions', () => {
  require('./mcpProtocolRevisions.cases');
});
describe('mcpSearchTools', () => {
  require('./mcpSearchTools.cases');
});
describe('mcpToolBatches', () => {
  require('./mcpToolBatches.cases');
});
describe('mcpToolDispatch', () => {
  require('./mcpToolDispatch.cases');
});
describe('mcpToolOutputs', () => {
  require('./mcpToolOutputs.cases');
});
describe('mcpToolServer', () => {
  require('./mcpToolServer.cases');
});
