import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { Config } from '../core/config';

/** A Temporal worker for the configured task queue, running every workflow and activity. */
export async function createWorker(config: Config, opts: { workflowBundlePath?: string } = {}): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...(opts.workflowBundlePath ? { workflowBundle: { codePath: opts.workflowBundlePath } } : { workflowsPath: require.resolve('../workflows') }),
    activities: createActivities(config),
    maxConcurrentActivityTaskExecutions: 200,
  });
  return { worker, connection };
}
