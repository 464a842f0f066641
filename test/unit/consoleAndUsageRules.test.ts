/**
 * Console and usage rules: bar charts, the reads' pace, CSV export, safe HTML, usage charts and
 * usage counting.
 *
 * Each file below is a describe block of its own with its own hooks; run as one jest file, they
 * load the modules they share once instead of once per file, which is most of a short file's cost.
 * One of them alone: `npx jest test/unit/consoleAndUsageRules.test.ts -t <name>`.
 */
describe('barChart', () => {
  require('./barChart.cases');
});
describe('consoleReadsPace', () => {
  require('./consoleReadsPace.cases');
});
describe('csvExport', () => {
  require('./csvExport.cases');
});
describe('safeHtml', () => {
  require('./safeHtml.cases');
});
describe('usageCharts', () => {
  require('./usageCharts.cases');
});
describe('usageCounters', () => {
  require('./usageCounters.cases');
});
describe('usageCounting', () => {
  require('./usageCounting.cases');
});
