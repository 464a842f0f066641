import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { Config } from '../core/config';
import { startDeliveriesEagerlyOn } from '../core/webhooks/jobCompletedEvent';

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
  // Webhook events emitted in this process start their delivery workflow on this worker.
  startDeliveriesEagerlyOn({
    client: new Client({ connection, namespace: config.temporal.namespace }),
    taskQueue: config.temporal.taskQueue,
    running: () => worker.getState() === 'RUNNING',
  });
  return { worker, connection };
}
