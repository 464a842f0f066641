/**
 * The OAuth server: token endpoint, client registration, signing keys, the authorization flow,
 * client metadata documents and its operator commands.
 *
 * Each file below is a describe block of its own with its own API, database and hooks; run
 * as one jest file, they load the app's modules once instead of once per file, which is most
 * of a short file's cost. One of them alone: `npx jest test/integration/oauth.test.ts -t <name>`.
 */
describe('oauthAdminCli', () => {
  require('./oauthAdminCli.cases');
});
describe('oauthAuthorizeFlow', () => {
  require('./oauthAuthorizeFlow.cases');
});
describe('oauthMetadataFetchBounds', () => {
  require('./oauthMetadataFetchBounds.cases');
});
describe('oauthRegistration', () => {
  require('./oauthRegistration.cases');
});
describe('oauthSigningKeys', () => {
  require('./oauthSigningKeys.cases');
});
describe('oauthTokenEndpoint', () => {
  require('./oauthTokenEndpoint.cases');
});
