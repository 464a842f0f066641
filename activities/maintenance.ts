import type { Config } from '../core/config';
import type { Stores } from '../core/deps';
import { purgeExpiredRecords, type PurgedCounts } from '../core/maintenance/purgeExpiredRecords';
import { rollUpUsage, type RollupCounts } from '../core/usage/usageRollup';

/** Activities of the store maintenance schedule; each one is safe to repeat. */
export function createMaintenanceActivities(config: Pick<Config, 'auditRetentionDays'>, stores: Stores) {
  return {
    async purgeExpiredRecords(): Promise<PurgedCounts> {
      return purgeExpiredRecords(stores, new Date(), { auditRetentionDays: config.auditRetentionDays });
    },
    async rollUpUsage(): Promise<RollupCounts> {
      return rollUpUsage(stores, new Date());
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
