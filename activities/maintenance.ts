import type { Deps } from '../core/deps';
import { purgeExpiredRecords, type PurgedCounts } from '../core/maintenance/purgeExpiredRecords';
import { rollUpUsage, type RollupCounts } from '../core/usage/usageRollup';

/** Activities of the store maintenance schedule; each one is safe to repeat. */
export function createMaintenanceActivities({ config, now }: Pick<Deps, 'config' | 'now'>) {
  return {
    async purgeExpiredRecords(): Promise<PurgedCounts> {
      return purgeExpiredRecords(new Date(now()), { auditRetentionDays: config.auditRetentionDays });
    },
    async rollUpUsage(): Promise<RollupCounts> {
      return rollUpUsage(new Date(now()));
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
