/**
 * The typed TypeScript client: against the running service, and as a package that packs,
 * installs offline and type-checks a caller's code.
 *
 * Each file below is a describe block of its own with its own hooks; run as one jest file, they
 * load their modules once. One of them alone: `npx jest test/integration/clients.test.ts -t <name>`.
 */
describe('typescriptClient', () => {
  require('./typescriptClient.cases');
});
describe('typescriptClientPackage', () => {
  require('./typescriptClientPackage.cases');
});
