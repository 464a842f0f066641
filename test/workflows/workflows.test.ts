/**
 * The workflows on the time-skipping server: each with its real activities over the full
 * schedule, and each branch with its activities mocked.
 *
 * Each file below is a describe block of its own with its own server and worker; run as one jest
 * file, they load their modules once. One of them alone: `npx jest test/workflows/workflows.test.ts -t <name>`.
 */
describe('contactRetrieval', () => {
  require('./contactRetrieval.cases');
});
describe('contactRetrievalBranches', () => {
  require('./contactRetrievalBranches.cases');
});
describe('webhookDelivery', () => {
  require('./webhookDelivery.cases');
});
describe('webhookDeliveryBranches', () => {
  require('./webhookDeliveryBranches.cases');
});
