import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../core/config';

let counter = 0;

/** A unique name per test file (and per call), safe as a database or task-queue name. */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter}`;
}

/**
 * The settings every process of one test deployment (API replicas, workers, the operator CLI)
 * must agree on, as environment variables: a CLI that waited a shorter read-cache time than an
 * API replica caches would let the replica act on what the CLI just changed.
 */
export function sharedSettings(config: Config): Record<string, string> {
  return { READ_CACHE_MS: String(config.readCacheMs) };
}

/**
 * A config for one test file: its own database on the shared test store and its own Temporal
 * task queue. `env` overrides any variable, exactly as the processes read them.
 */
export function testConfig(env: Record<string, string> = {}): Config {
  const base = process.env.TEST_MONGODB_BASE;
  const temporal = process.env.TEST_TEMPORAL_ADDRESS;
  if (!base || !temporal) throw new Error('integration tests need the global set-up (run them through jest --selectProjects integration)');
  const cfg = loadConfig({
    NODE_ENV: 'test',
    // Logged lines go to the file's log buffer (test/support/testLogs.ts), shown when a test fails.
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'info',
    HOST: '127.0.0.1',
    PORT: '0',
    MONGODB_URI: `${base}/${uniqueName('t')}`,
    TEMPORAL_ADDRESS: temporal,
    TEMPORAL_TASK_QUEUE: uniqueName('tq'),
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // A change (a revoked key, a limit) returns once every replica's read cache let go of the old
    // value: a short cache keeps each such change from costing the test a second. Every process
    // a test starts gets the same value (see \`sharedSettings\`).
    READ_CACHE_MS: '100',
    // Passwords hashed at the lowest cost config admits (2^10, a few ms instead of a few hundred
    // under load): the tests sign in hundreds of times. The production cost (2^15) is hashed and
    // verified in test/unit/usersPasswords.test.ts, and `npm run dev` runs at it.
    PASSWORD_SCRYPT_LOG2_N: '10',
    ...env,
  });
  return cfg;
}
