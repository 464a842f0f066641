import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../core/config';
import { activityContext } from './activityContext';
import { EventMissing, createAttemptDeliverer, type AttemptInput, type AttemptResult, type DeliverAttemptDeps } from '../core/webhooks/deliverAttempt';

export type { AttemptInput, AttemptResult } from '../core/webhooks/deliverAttempt';
export type DeliveryActivityDeps = DeliverAttemptDeps;

/** The webhook delivery activity: a thin adapter over the attempt use case (core/webhooks/deliverAttempt.ts). */
export function createDeliveryActivities(config: Config, deps: DeliveryActivityDeps = {}) {
  const deliver = createAttemptDeliverer(config, deps);
  return {
    async attemptDelivery(input: AttemptInput): Promise<AttemptResult> {
      try {
        return await deliver(input, { workflowId: activityContext().workflowId });
      } catch (err) {
        // Not an infrastructure hiccup: retrying cannot make a missing event appear.
        if (err instanceof EventMissing) throw ApplicationFailure.nonRetryable(err.message, 'EventMissing');
        throw err;
      }
    },
  };
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;
