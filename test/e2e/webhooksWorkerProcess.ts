import { DefaultLogger, NativeConnection, Runtime, Worker, makeTelemetryFilterString } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { loadConfig } from '../../core/config';
import { createDeps } from '../../core/deps';
import { createLogger } from '../../core/observability/logger';
import { openStore } from '../../core/store/connection';
import { createTemporalClients } from '../../core/temporal/client';

/**
 * A worker in a process of its own, for the test that kills one with SIGKILL. Like
 * worker/main.ts (same activities and workflows), but with the workflow bundle the test set-up
 * already built (bundling from source would take most of the test's time on a busy machine).
 */
async function main(): Promise<void> {
  const config = loadConfig();
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
  const store = await openStore(config.mongodbUri);
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address: config.temporal.address }),
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    // The process is killed, never stopped: its clients' connection ends with it.
    activities: createActivities(createDeps(config, { temporal: createTemporalClients(config), logger: createLogger({ level: 'silent' }), store })),
    // This worker is killed mid-workflow: let its successor take over the sticky tasks quickly.
    stickyQueueScheduleToStartTimeout: '1 second',
  });
  await worker.run();
}

main().catch((err) => {
  process.stderr.write(`worker process failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
