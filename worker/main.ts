import { Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { loadConfigOrExit } from '../core/config';
import { armExitPoint } from '../core/faultInjection';
import { ensureMaintenanceSchedule, MAINTENANCE_SCHEDULE_ID } from '../core/maintenance/maintenanceSchedule';
import { logger } from '../core/observability/logger';
import { createStores } from '../core/deps';
import { openStore } from '../core/store/connection';
import { createTemporalClients } from '../core/temporal/client';
import { describeTemporalConnection } from '../core/temporal/connectionOptions';
import { startWorkflowStarter } from '../core/starters/workflowStarter';
import { startMailSender } from '../core/mail/mailSender';
import { createWorker } from './createWorker';
import { startMetricsServer } from './metricsServer';
import { sdkLogger } from './sdkLogger';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  logger.level = config.logLevel;
  Runtime.install({ logger: sdkLogger(logger), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }) } } });
  armExitPoint(config.chaosExitAt);
  const store = await openStore(config.mongodbUri, config.store);
  const stores = createStores(store.connection);
  await store.ensureIndexes();
  const temporal = createTemporalClients(config);
  const { worker, connection, client, usage } = await createWorker(config, { temporal, stores });
  // Not a reason to stop delivering webhooks and running jobs: say so loudly and go on.
  await ensureMaintenanceSchedule(client, { taskQueue: config.temporal.taskQueue }).then(
    (created) => logger.info({ scheduleId: MAINTENANCE_SCHEDULE_ID, created }, 'store maintenance schedule in place'),
    (err: Error) => logger.error({ scheduleId: MAINTENANCE_SCHEDULE_ID, err: { message: err.message } }, 'could not create the store maintenance schedule'),
  );
  const metrics = config.worker.metricsPort > 0 ? await startMetricsServer(config) : null;
  if (metrics) logger.info({ port: metrics.port, host: config.host }, 'worker metrics at /metrics');
  // Starts and cancels the API recorded while Temporal was down are carried out from here too.
  const workflowStarter = startWorkflowStarter(config, temporal);
  // Mail the API recorded is sent from here too.
  const mailSender = startMailSender(stores, config);
  logger.info({ taskQueue: config.temporal.taskQueue, temporal: describeTemporalConnection(config.temporal) }, 'worker running');
  // worker.run() resolves after SIGINT/SIGTERM: the SDK drains in-flight tasks first.
  await worker.run();
  await usage.stop();
  await workflowStarter.stop();
  await mailSender.stop();
  await temporal.close();
  await metrics?.close();
  await connection.close();
  await store.close();
  logger.info('worker stopped');
}

main().catch((err) => {
  logger.fatal({ err: { message: err.message } }, 'worker failed');
  process.exit(1);
});
