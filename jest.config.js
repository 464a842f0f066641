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
  // A file leaves part of its modules behind in the worker's heap, which grows with every file,
  // and every garbage collection then walks all of it: a worker past this size after a file is
  // replaced by a fresh one.
  workerIdleMemoryLimit: '300MB',
  // The slowest files first, also without the timing cache of a previous run.
  testSequencer: '<rootDir>/test/support/testSequencer.cjs',
  projects: [
    { displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'], transform, transformIgnorePatterns, testEnvironment: 'node' },
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
