import { proxyActivities } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance';
import type { PurgedCounts } from '../core/maintenance/purgeExpiredRecords';

const { purgeExpiredRecords } = proxyActivities<MaintenanceActivities>({
  startToCloseTimeout: '15 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 5 },
});

/**
 * One run of the hourly `store-maintenance` schedule: deletes the records whose own expiry has
 * passed (see core/maintenance). The counts it returns show in the Temporal UI as its result.
 */
export async function storeMaintenanceWorkflow(): Promise<PurgedCounts> {
  return purgeExpiredRecords();
}
