/**
 * The store: checkpoints, deletes, equality on a field, conditional updates under concurrency, maintenance, outages,
 * the search index snapshot, secrets at rest and the warm start that opens it.
 *
 * Each file below is a describe block of its own with its own API, database and hooks; run
 * as one jest file, they load the app's modules once instead of once per file, which is most
 * of a short file's cost. One of them alone: `npx jest test/integration/store.test.ts -t <name>`.
 */
describe('conditionalUpdateAtomicity', () => {
  require('./conditionalUpdateAtomicity.cases');
});
describe('indexSet', () => {
  require('./indexSet.cases');
});
describe('searchIndexSnapshot', () => {
  require('./searchIndexSnapshot.cases');
});
describe('secretsAtRest', () => {
  require('./secretsAtRest.cases');
});
describe('storeCheckpoints', () => {
  require('./storeCheckpoints.cases');
});
describe('storeDeletesById', () => {
  require('./storeDeletesById.cases');
});
describe('storeFieldEquality', () => {
  require('./storeFieldEquality.cases');
});
describe('storeMaintenance', () => {
  require('./storeMaintenance.cases');
});
describe('storeOutage', () => {
  require('./storeOutage.cases');
});
describe('warmStart', () => {
  require('./warmStart.cases');
});
