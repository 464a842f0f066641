import type { Config } from '../core/config';
import { createContactActivities } from './contacts';
import { createDeliveryActivities } from './deliveries';
import { createMaintenanceActivities } from './maintenance';

/** Builds the activity implementations the worker registers; each one is idempotent. */
export function createActivities(config: Config) {
  return {
    ...createDeliveryActivities(config),
    ...createContactActivities(config),
    ...createMaintenanceActivities(config),
  };
}

export type Activities = ReturnType<typeof createActivities>;
