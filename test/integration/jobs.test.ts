/**
 * Contact-retrieval jobs: the API from start to result, listing, chunk activity, contact field
 * claims, abuse bounds, overlapping jobs, a Temporal outage and a worker restart.
 *
 * Each file below is a describe block of its own with its own API, database and hooks; run as one
 * jest file, they load the app's modules once instead of once per file, which is most of a short
 * file's cost. One of them alone: `npx jest test/integration/jobs.test.ts -t <name>`.
 */
describe('jobsApi', () => {
  require('./jobsApi.cases');
});
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
describe('overlappingJobs', () => {
  require('./overlappingJobs.cases');
});
describe('jobsTemporalOutage', () => {
  require('./jobsTemporalOutage.cases');
});
describe('jobsWorkerRestart', () => {
  require('./jobsWorkerRestart.cases');
});
