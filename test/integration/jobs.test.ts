/**
 * Contact-retrieval jobs: listing, chunk activity, contact field claims and abuse bounds.
 *
 * Each file below is a describe block of its own with its own API, database and hooks; run as one
 * jest file, they load the app's modules once instead of once per file, which is most of a short
 * file's cost. One of them alone: `npx jest test/integration/jobs.test.ts -t <name>`.
 */
describe('contactChunkActivity', () => {
  require('./contactChunkActivity.cases');
});
describe('contactFieldClaims', () => {
  require('./contactFieldClaims.cases');
});
describe('jobList', () => {
  require('./jobList.cases');
});
describe('jobsAbuse', () => {
  require('./jobsAbuse.cases');
});
