import { purgeExpiredRecords, type PurgedCounts } from '../core/maintenance/purgeExpiredRecords';

/** Activities of the store maintenance schedule; each one is safe to repeat. */
export function createMaintenanceActivities() {
  return {
    async purgeExpiredRecords(): Promise<PurgedCounts> {
      return purgeExpiredRecords();
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
