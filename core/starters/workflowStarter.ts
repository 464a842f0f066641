import type { Config } from '../config';
import { claimJobOutbox, carryOutJobOutbox, jobsWithOutboxDue, releaseJobOutbox, temporalJobStarter } from '../jobs/jobOutbox';
import type { Logger } from '../observability/logger';
import { temporalReplaySignaller } from '../webhooks/replaySignals';
import { signalRecordedReplays } from '../webhooks/replays';
import { runEvery } from '../periodicPass';
import type { TemporalClients } from '../temporal/client';
import type { WebhookStores } from '../webhooks/store/webhookStore';
import type { JobStores } from '../jobs/store';
import { isTemporalUnanswered } from '../temporal/deadline';

/** Jobs one pass takes at most; the next pass (WORKFLOW_STARTER_INTERVAL_MS later) takes the rest. */
const JOBS_PER_PASS = 50;

export interface WorkflowStarter {
  /** One pass now (tests and the loop). */
  pass(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The workflow starter, one in every API replica and worker: every WORKFLOW_STARTER_INTERVAL_MS
 * it carries out the workflow starts, cancels and webhook replays recorded in the store and not
 * yet carried out (core/jobs/jobOutbox.ts, core/webhooks/replays.ts), each under a lease of WORKFLOW_STARTER_LEASE_MS so replicas do not
 * all try the same job. While Temporal does not answer, a pass stops at the first job and drops
 * the app's connection, so the next pass connects afresh and starts everything as soon as
 * Temporal is back (a connection left in its reconnect back-off could wait far longer).
 */
export function startWorkflowStarter(
  config: Config,
  temporal: TemporalClients,
  logger: Logger,
  now: () => number,
  stores: WebhookStores & JobStores,
): WorkflowStarter {
  const starter = temporalJobStarter(temporal, config);
  const replaySignal = temporalReplaySignaller(temporal, config);
  let stopped = false;

  async function pass(): Promise<void> {
    if (!(await startJobs())) return;
    try {
      await signalRecordedReplays(stores, replaySignal, config.workflowStarter.leaseMs, 50, new Date(now()));
    } catch (err) {
      if (!isTemporalUnanswered(err)) throw err;
      temporal.drop();
    }
  }

  /** False when Temporal did not answer (the rest waits for the next pass). */
  async function startJobs(): Promise<boolean> {
    for (const jobId of await jobsWithOutboxDue(stores, JOBS_PER_PASS, new Date(now()))) {
      if (stopped) return false;
      if (!(await claimJobOutbox(stores, jobId, config.workflowStarter.leaseMs, new Date(now())))) continue;
      try {
        await carryOutJobOutbox(stores, jobId, starter, new Date(now()));
        logger.info({ jobId }, 'workflow starter: recorded start or cancel carried out');
      } catch (err) {
        await releaseJobOutbox(stores, jobId).catch(() => undefined);
        if (isTemporalUnanswered(err)) {
          temporal.drop();
          logger.warn({ err: { message: (err as Error).message } }, 'workflow starter: Temporal does not answer; retrying on the next pass');
          return false;
        }
        throw err;
      }
    }
    return true;
  }

  const loop = runEvery(config.workflowStarter.intervalMs, pass, 'workflow starter', logger);

  return {
    pass,
    async stop() {
      stopped = true;
      await loop.stop();
    },
  };
}
