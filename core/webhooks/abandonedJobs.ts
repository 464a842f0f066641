import type { Config } from '../config';
import type { CreditStores } from '../credits/store';
import type { TalentStores } from '../talent/store';
import { finishJob } from '../jobs/jobFinish';
import type { Logger } from '../observability/logger';
import type { TemporalClients } from '../temporal/client';
import { emitJobCompleted } from './jobCompletedEvent';
import type { WebhookStores } from './store/webhookStore';
import type { JobStores } from '../jobs/store';

/**
 * Ends a job whose workflow is gone (terminated by an operator, lost): everyone not settled
 * fails with `processing_error`, and its one `job.completed` event is emitted, as the
 * workflow would have. Best effort: the slot is free whatever happens here.
 */
export async function finishAbandonedJob(
  {
    config,
    temporal,
    logger,
    now,
    stores,
  }: { config: Config; temporal: TemporalClients; logger: Logger; now: () => number; stores: CreditStores & TalentStores & WebhookStores & JobStores },
  jobId: string,
): Promise<void> {
  try {
    const f = await finishJob(stores, jobId, null, new Date(now()));
    await emitJobCompleted(
      config,
      {
        orgId: f.orgId,
        workspaceId: f.workspaceId,
        jobId: f.jobId,
        status: f.status,
        counts: f.counts,
        resultExpiresAt: f.resultExpiresAt ? new Date(f.resultExpiresAt) : null,
        completedAt: new Date(f.completedAt),
      },
      { temporal, now, stores },
    );
  } catch (err) {
    logger.warn({ err, jobId }, 'could not finish a job whose workflow is gone');
  }
}
