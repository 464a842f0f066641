import type { Config } from '../core/config';
import type { UsageCounters } from '../core/usage/usageCounters';
import { createContactActivities } from './contacts';
import { createDeliveryActivities } from './deliveries';
import { createMaintenanceActivities } from './maintenance';

/** Builds the activity implementations the worker registers; each one is idempotent. */
export function createActivities(config: Config, usage?: UsageCounters) {
  return {
    ...createDeliveryActivities(config),
    ...createContactActivities(config, usage),
    ...createMaintenanceActivities(config),
  };
}

export type Activities = ReturnType<typeof createActivities>;
