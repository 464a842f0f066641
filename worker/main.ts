import { Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { loadConfigOrExit, type Config } from '../core/config';
import { closeDeps, openDeps, type Deps } from '../core/deps';
import { ensureMaintenanceSchedule, MAINTENANCE_SCHEDULE_ID } from '../core/maintenance/maintenanceSchedule';
import { createLogger, type Logger } from '../core/observability/logger';
import { describeTemporalConnection } from '../core/temporal/connectionOptions';
import { startWorkflowStarter } from '../core/starters/workflowStarter';
import { startMailSender } from '../core/mail/mailSender';
import { UsageCounters } from '../core/usage/usageCounters';
import { createWorker } from './createWorker';
import { startMetricsServer } from './metricsServer';
import { sdkLogger } from './sdkLogger';

/**
 * The worker's composition root: it loads the config, builds the logger and the same kind of
 * dependencies the API's root builds (store, clock, logger, caches, Temporal clients, usage
 * counters) and hands them to the worker's activities.
 */
async function main(config: Config, logger: Logger): Promise<void> {
  Runtime.install({ logger: sdkLogger(logger), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }) } } });
  const opened = await openDeps(config, { logger });
  const usage = new UsageCounters(opened.stores, { logger, now: opened.now });
  const deps: Deps = { ...opened, usage };
  const { worker, connection, client } = await createWorker(deps);
  usage.start();
  // Not a reason to stop delivering webhooks and running jobs: say so loudly and go on.
  await ensureMaintenanceSchedule(client, { taskQueue: config.temporal.taskQueue }).then(
    (created) => logger.info({ scheduleId: MAINTENANCE_SCHEDULE_ID, created }, 'store maintenance schedule in place'),
    (err: Error) => logger.error({ scheduleId: MAINTENANCE_SCHEDULE_ID, err: { message: err.message } }, 'could not create the store maintenance schedule'),
  );
  const metrics = config.worker.metricsPort > 0 ? await startMetricsServer(config) : null;
  if (metrics) logger.info({ port: metrics.port, host: config.host }, 'worker metrics at /metrics');
  // Starts and cancels the API recorded while Temporal was down are carried out from here too.
  const workflowStarter = startWorkflowStarter(config, deps.temporal, logger, deps.now, deps.stores);
  // Mail the API recorded is sent from here too.
  const mailSender = startMailSender(deps.stores, config, { logger, now: deps.now, keys: deps.purposeKeys });
  logger.info({ taskQueue: config.temporal.taskQueue, temporal: describeTemporalConnection(config.temporal) }, 'worker running');
  // worker.run() resolves after SIGINT/SIGTERM: the SDK drains in-flight tasks first.
  await worker.run();
  await usage.stop();
  await workflowStarter.stop();
  await mailSender.stop();
  await metrics?.close();
  await connection.close();
  await closeDeps(deps);
  logger.info('worker stopped');
}

const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel });
main(config, logger).catch((err: Error) => {
  logger.fatal({ err: { message: err.message } }, 'worker failed');
  process.exit(1);
});
