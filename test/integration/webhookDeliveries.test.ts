/**
 * Webhook endpoints and deliveries: the routes, delivery attempts and their numbering, replays
 * and abuse bounds.
 *
 * Each file below is a describe block of its own with its own API, database and hooks; run
 * as one jest file, they load the app's modules once instead of once per file, which is most
 * of a short file's cost. One of them alone: `npx jest test/integration/webhookDeliveries.test.ts -t <name>`.
 */
describe('deliveryAttemptActivity', () => {
  require('./deliveryAttemptActivity.cases');
});
describe('replayCap', () => {
  require('./replayCap.cases');
});
describe('webhookAbuse', () => {
  require('./webhookAbuse.cases');
});
describe('webhookDeliveryNumbering', () => {
  require('./webhookDeliveryNumbering.cases');
});
describe('webhookRoutes', () => {
  require('./webhookRoutes.cases');
});
describe('webhookSendAttempt', () => {
  require('./webhookSendAttempt.cases');
});
