import type { Config } from '../core/config';
import type { Stores } from '../core/deps';
import type { TemporalClients } from '../core/temporal/client';
import type { UsageCounters } from '../core/usage/usageCounters';
import type { LookupAll } from '../core/outbound/destinationPolicy';
import type { EagerDeliveryStarts } from '../core/webhooks/jobCompletedEvent';
import { createContactActivities } from './contacts';
import { createDeliveryActivities } from './deliveries';
import { createMaintenanceActivities } from './maintenance';

/** What the worker's composition root hands its activities. */
export interface WorkerParts {
  /** The worker's usage counters, told the credits each chunk charges. */
  usage?: UsageCounters;
  /** The worker's own worker, which starts an emitted event's delivery workflow eagerly. */
  eager?: EagerDeliveryStarts;
  /** The worker's Temporal clients, for what its own worker cannot start eagerly. */
  temporal: TemporalClients;
  /** The DNS lookup of the destination check before each webhook attempt; the system's by default. */
  destinationLookup?: LookupAll;
  /** The areas' stores on the worker's store connection. */
  stores: Stores;
}

/** Builds the activity implementations the worker registers; each one is idempotent. */
export function createActivities(config: Config, { usage, eager, temporal, destinationLookup, stores }: WorkerParts) {
  return {
    ...createDeliveryActivities(config, { destinationLookup }),
    ...createContactActivities(config, { eager, temporal }, usage),
    ...createMaintenanceActivities(config, stores),
  };
}

export type Activities = ReturnType<typeof createActivities>;
