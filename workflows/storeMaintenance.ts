import { proxyActivities } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance';
import type { PurgedCounts } from '../core/maintenance/purgeExpiredRecords';
import type { RollupCounts } from '../core/usage/usageRollup';

const { purgeExpiredRecords, rollUpUsage } = proxyActivities<MaintenanceActivities>({
  startToCloseTimeout: '15 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 5 },
});

/**
 * One run of the hourly `store-maintenance` schedule: rolls the usage counters up into hour and
 * day rows (core/usage/usageRollup.ts) and deletes the records whose own expiry has passed (see
 * core/maintenance). The counts it returns show in the Temporal UI as its result.
 */
export async function storeMaintenanceWorkflow(): Promise<PurgedCounts & { usage: RollupCounts }> {
  const usage = await rollUpUsage();
  return { ...(await purgeExpiredRecords()), usage };
}
