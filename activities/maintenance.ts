import type { Deps } from '../core/deps';
import { purgeExpiredRecords, type PurgedCounts } from '../core/maintenance/purgeExpiredRecords';
import { rollUpUsage, type RollupCounts } from '../core/usage/usageRollup';

/** Activities of the store maintenance schedule; each one is safe to repeat. */
export function createMaintenanceActivities({ config, now, stores }: Pick<Deps, 'config' | 'now' | 'stores'>) {
  return {
    async purgeExpiredRecords(): Promise<PurgedCounts> {
      return purgeExpiredRecords(stores, new Date(now()), { auditRetentionDays: config.auditRetentionDays });
    },
    async rollUpUsage(): Promise<RollupCounts> {
      return rollUpUsage(stores, new Date(now()));
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
