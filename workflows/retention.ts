import { proxyActivities, sleep } from '@temporalio/workflow';
import type { ContactActivities } from '../activities/contacts';
import { RESULT_PURGE_AFTER_MS, RESULT_RETENTION_MS } from '../core/jobs/jobRules';

const steps = proxyActivities<ContactActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 hour' },
});

/**
 * The durable retention schedule of one job result, `job-result-retention:<job_id>`: at
 * `result_expires_at` (7 days) the contact values are removed and reads become 409; at 30 days
 * the result is deleted and reads become 410.
 */
export async function resultRetentionWorkflow(input: { jobId: string; completedAt: string }): Promise<void> {
  const completed = Date.parse(input.completedAt);
  await sleep(Math.max(0, completed + RESULT_RETENTION_MS - Date.now()));
  await steps.expireContactRetrievalResult({ jobId: input.jobId });
  await sleep(Math.max(0, completed + RESULT_PURGE_AFTER_MS - Date.now()));
  await steps.purgeContactRetrievalResult({ jobId: input.jobId });
}
