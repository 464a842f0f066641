// Two projects: `unit` needs nothing running; `integration` gets MongoDB-wire storage and a
// Temporal server from the global setup (started on free ports unless configured).
const transform = { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] };
// ESM-only packages used by tests are transpiled like our own code.
const transformIgnorePatterns = ['/node_modules/(?!(oauth4webapi|jose)/)'];
module.exports = {
  // A global option: jest ignores testTimeout inside a project.
  testTimeout: 120000,
  // Three files at once, also on a 2-CPU machine (jest's default there is one): part of a file's
  // time is spent waiting (on Temporal, on the store, on child processes), and each file has its
  // own database, task queue and organizations (test/support/testConfig.ts).
  maxWorkers: 3,
  // A worker past this heap size after a file is replaced by a fresh one, which loads jest and
  // the next file's modules from scratch. A file's modules are let go at its end (the tests'
  // environment stops the performance observers that kept them), so a worker's heap grows
  // mostly by garbage not yet collected, cheaper to collect than a new worker is to start.
  workerIdleMemoryLimit: '800MB',
  // The slowest files first, also without the timing cache of a previous run.
  testSequencer: '<rootDir>/test/support/testSequencer.cjs',
  projects: [
    {
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      transform,
      transformIgnorePatterns,
      testEnvironment: '<rootDir>/test/support/logBufferEnvironment.ts',
    },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/workflows/**/*.test.ts', '<rootDir>/test/e2e/**/*.test.ts'],
      transform,
      transformIgnorePatterns,
      // Logs go to a buffer per test file, printed only when one of its tests fails: a green run is quiet.
      testEnvironment: '<rootDir>/test/support/logBufferEnvironment.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/logBufferSetup.ts'],
      globalSetup: '<rootDir>/test/support/globalSetup.ts',
      globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
    },
  ],
};
