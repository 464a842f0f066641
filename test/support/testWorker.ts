import type { Worker } from '@temporalio/worker';
import type { Config } from '../../core/config';
import { createStores } from '../../core/deps';
import { openStore } from '../../core/store/connection';
import { createTemporalClients } from '../../core/temporal/client';
import type { LookupAll } from '../../core/outbound/destinationPolicy';
import { createWorker } from '../../worker/createWorker';
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
 * made once by the global set-up, on a store connection and Temporal clients (what its own
 * worker cannot start eagerly) of its own, closed when it stops.
 */
export async function startTestWorker(config: Config, opts: { destinationLookup?: LookupAll } = {}): Promise<TestWorker> {
  installTestRuntime();
  const temporal = createTemporalClients(config);
  const store = await openStore(config.mongodbUri, config.store, { ownConnectionOnly: true });
  const { worker, connection, usage } = await createWorker(config, {
    workflowBundlePath: process.env.TEST_WORKFLOW_BUNDLE,
    temporal,
    stores: createStores(store.connection),
    ...opts,
  });
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
      await store.close();
    },
  };
}
