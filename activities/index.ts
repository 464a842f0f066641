import type { Deps } from '../core/deps';
import type { EagerDeliveryStarts } from '../core/webhooks/jobCompletedEvent';
import { createContactActivities } from './contacts';
import { createDeliveryActivities } from './deliveries';
import { createMaintenanceActivities } from './maintenance';

/** What the worker's composition root hands its activities besides its dependencies. */
export interface WorkerParts {
  /** The worker's own worker, which starts an emitted event's delivery workflow eagerly. */
  eager?: EagerDeliveryStarts;
}

/**
 * Builds the activity implementations the worker registers; each one is idempotent. `deps`: what
 * the worker's root built (core/deps.ts), the same kind the API's root builds: the activities
 * read its clock, log through its logger and read through its caches.
 */
export function createActivities(deps: Deps, { eager }: WorkerParts = {}) {
  return {
    ...createDeliveryActivities(deps),
    ...createContactActivities(deps, { eager }),
    ...createMaintenanceActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
