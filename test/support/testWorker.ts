import type { Worker } from '@temporalio/worker';
import type { Config } from '../../core/config';
import { createDeps } from '../../core/deps';
import { defaultStore } from '../../core/store/connection';
import { createTemporalClients } from '../../core/temporal/client';
import type { LookupAll } from '../../core/outbound/destinationPolicy';
import { UsageCounters } from '../../core/usage/usageCounters';
import { createWorker } from '../../worker/createWorker';
import { testLogger } from './capturedLogs';
import { installTestRuntime } from './testRuntime';

export interface TestWorker {
  worker: Worker;
  /** Stops the worker (as a SIGTERM would) and waits for it to drain. */
  stop: () => Promise<void>;
  /** Writes the usage (job charges) this worker counted so far. */
  flushUsage: () => Promise<void>;
}

/**
 * A real worker, in-process, on the test file's own task queue, running the workflow bundle
 * made once by the global set-up, over dependencies built as worker/main.ts builds them. The
 * store connection is the test API's; its Temporal clients (what its own worker cannot start
 * eagerly) are its own, closed when it stops.
 */
export async function startTestWorker(config: Config, opts: { destinationLookup?: LookupAll } = {}): Promise<TestWorker> {
  installTestRuntime();
  const logger = testLogger(config.logLevel);
  const usage = new UsageCounters({ logger });
  const temporal = createTemporalClients(config);
  const deps = createDeps(config, { temporal, logger, usage, store: defaultStore(), ...opts });
  const { worker, connection } = await createWorker(deps, { workflowBundlePath: process.env.TEST_WORKFLOW_BUNDLE });
  usage.start();
  const running = worker.run();
  return {
    worker,
    flushUsage: () => usage.flush({ all: true }),
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await usage.stop();
      await connection.close();
      await temporal.close();
    },
  };
}
