/**
 * Webhook rules: delivery numbering and timelines, event status, eager starts, replays, retry
 * schedule, signatures, event envelopes and secrets, metadata fetch bounds, pinned fetch and the
 * receiver example.
 *
 * Each file below is a describe block of its own with its own hooks; run as one jest file, they
 * load the modules they share once instead of once per file, which is most of a short file's cost.
 * One of them alone: `npx jest test/unit/webhookRules.test.ts -t <name>`.
 */
describe('deliveryNumbering', () => {
  require('./deliveryNumbering.cases');
});
describe('deliveryTimeline', () => {
  require('./deliveryTimeline.cases');
});
describe('eagerDeliveryStarts', () => {
  require('./eagerDeliveryStarts.cases');
});
describe('eventDeliveryStatus', () => {
  require('./eventDeliveryStatus.cases');
});
describe('metadataFetchBounds', () => {
  require('./metadataFetchBounds.cases');
});
describe('pinnedFetch', () => {
  require('./pinnedFetch.cases');
});
describe('replayAllowance', () => {
  require('./replayAllowance.cases');
});
describe('replayRule', () => {
  require('./replayRule.cases');
});
describe('webhookEventAndSecrets', () => {
  require('./webhookEventAndSecrets.cases');
});
describe('webhookReceiverExample', () => {
  require('./webhookReceiverExample.cases');
});
describe('webhookRetrySchedule', () => {
  require('./webhookRetrySchedule.cases');
});
describe('webhookSignatures', () => {
  require('./webhookSignatures.cases');
});
