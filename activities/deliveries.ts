import { ApplicationFailure } from '@temporalio/common';
import type { Deps } from '../core/deps';
import { activityContext, activityLogger } from './activityContext';
import { EventMissing, createAttemptDeliverer, type AttemptInput, type AttemptResult } from '../core/webhooks/deliverAttempt';

export type { AttemptInput, AttemptResult } from '../core/webhooks/deliverAttempt';

/** What the delivery activity reads: the settings, the clock, the logger, the destination check's DNS lookup, the trust anchors, the outbound pools and the stores. */
export type DeliveryActivityDeps = Pick<Deps, 'config' | 'now' | 'logger' | 'destinationLookup' | 'trustAnchors' | 'outbound' | 'purposeKeys' | 'stores'>;

/** The webhook delivery activity: a thin adapter over the attempt use case (core/webhooks/deliverAttempt.ts). */
/** `attemptTime`: the time of an attempt when it is not the worker's clock (the time-skipping test server's). */
export function createDeliveryActivities(deps: DeliveryActivityDeps, { attemptTime }: { attemptTime?: () => Promise<Date> } = {}) {
  const deliver = createAttemptDeliverer(deps.config, {
    now: attemptTime ?? (() => new Date(deps.now())),
    destinationLookup: deps.destinationLookup,
    trustAnchors: deps.trustAnchors,
    outbound: deps.outbound,
    purposeKeys: deps.purposeKeys,
    stores: deps.stores,
  });
  return {
    async attemptDelivery(input: AttemptInput): Promise<AttemptResult> {
      try {
        return await deliver(input, { workflowId: activityContext().workflowId, logger: activityLogger(deps.logger) });
      } catch (err) {
        // Not an infrastructure hiccup: retrying cannot make a missing event appear.
        if (err instanceof EventMissing) throw ApplicationFailure.nonRetryable(err.message, 'EventMissing');
        throw err;
      }
    },
  };
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;
