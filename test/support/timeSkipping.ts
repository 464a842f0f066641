import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { SA } from '../../core/temporal/searchAttributes';
import { installTestRuntime } from './testRuntime';

/**
 * The time-skipping test server of a workflow test file, from the binary the global set-up
 * installed, with the service's search attributes registered (the dev server gets them at start;
 * the test server knows none until told).
 */
export async function startTimeSkipping(): Promise<TestWorkflowEnvironment> {
  installTestRuntime();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: process.env.TEST_TEMPORAL_TEST_SERVER! } },
  });
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(Object.values(SA).map((k) => [k.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD])),
  });
  return env;
}

export interface RunningWorker {
  worker: Worker;
  /** Stops the worker and waits until it has. */
  stop: () => Promise<void>;
}

/** A worker on `taskQueue` running the global set-up's workflow bundle with these activities. */
export async function startBundleWorker(env: TestWorkflowEnvironment, taskQueue: string, activities: object): Promise<RunningWorker> {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    activities,
  });
  const running = worker.run();
  return {
    worker,
    stop: async () => {
      worker.shutdown();
      await running;
    },
  };
}
