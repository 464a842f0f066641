/**
 * Signing in from OAuth clients in Chromium: the sign-in and consent pages, the MCP SDK's own
 * OAuth client, an AI application's daily allowance, and the refusals (framing, CSRF, redirect
 * URIs, disabled people and revoked grants).
 *
 * Each file below is a describe block of its own with its own API and hooks; run as one jest
 * file, they load the app's modules once instead of once per file. One of them alone:
 * `npx jest test/e2e/signInClients.test.ts -t <name>`.
 */
describe('signInBrowser', () => {
  require('./signInBrowser.cases');
});
describe('mcpOAuthClient', () => {
  require('./mcpOAuthClient.cases');
});
describe('agentAllowanceBrowser', () => {
  require('./agentAllowanceBrowser.cases');
});
describe('oauthRefusals', () => {
  require('./oauthRefusals.cases');
});
