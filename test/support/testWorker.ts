import type { Worker } from '@temporalio/worker';
import type { Config } from '../../core/config';
import { createDeps, type Deps } from '../../core/deps';
import { openStore } from '../../core/store/connection';
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
 * made once by the global set-up, over dependencies built as worker/main.ts builds them, on a
 * store connection and Temporal clients (what its own worker cannot start eagerly) of its own,
 * closed when it stops.
 */
export async function startTestWorker(config: Config, opts: { destinationLookup?: LookupAll } = {}): Promise<TestWorker> {
  installTestRuntime();
  const logger = testLogger(config.logLevel);
  const temporal = createTemporalClients(config);
  const store = await openStore(config.mongodbUri, config.store);
  const base = createDeps(config, { temporal, logger, store, ...opts });
  const usage = new UsageCounters(base.stores, { logger, now: base.now });
  const deps: Deps = { ...base, usage };
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
      deps.outbound.close();
      await temporal.close();
      await store.close();
    },
  };
}
