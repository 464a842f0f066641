/**
 * Rate limits, credits and usage as callers see them: the headers, per-client limits, concurrent
 * limit changes and the usage API.
 *
 * Each file below is a describe block of its own with its own API, database and hooks; run
 * as one jest file, they load the app's modules once instead of once per file, which is most
 * of a short file's cost. One of them alone: `npx jest test/integration/rateLimits.test.ts -t <name>`.
 */
describe('clientRateLimit', () => {
  require('./clientRateLimit.cases');
});
describe('creditHeaders', () => {
  require('./creditHeaders.cases');
});
describe('limitSettingsConcurrency', () => {
  require('./limitSettingsConcurrency.cases');
});
describe('limitSettingsDirectory', () => {
  require('./limitSettingsDirectory.cases');
});
describe('rateLimitAnswers', () => {
  require('./rateLimitAnswers.cases');
});
describe('rateLimitHeaders', () => {
  require('./rateLimitHeaders.cases');
});
describe('usageApi', () => {
  require('./usageApi.cases');
});
