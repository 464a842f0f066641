import type { Config } from '../core/config';
import type { UsageCounters } from '../core/usage/usageCounters';
import type { EagerDeliveryStarts } from '../core/webhooks/jobCompletedEvent';
import { createContactActivities } from './contacts';
import { createDeliveryActivities } from './deliveries';
import { createMaintenanceActivities } from './maintenance';

/** Builds the activity implementations the worker registers; each one is idempotent. */
export function createActivities(config: Config, usage?: UsageCounters, eager?: EagerDeliveryStarts) {
  return {
    ...createDeliveryActivities(config),
    ...createContactActivities(config, usage, eager),
    ...createMaintenanceActivities(config),
  };
}

export type Activities = ReturnType<typeof createActivities>;
