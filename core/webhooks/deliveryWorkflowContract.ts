/**
 * What the API and the emitter share with the delivery workflow, without importing workflow
 * code: the workflow type name, its id, its input, the replay signal. Pure (no Node APIs), so
 * the workflow bundle can import it too.
 */
export const DELIVERY_WORKFLOW_TYPE = 'webhookDelivery';
export const REPLAY_SIGNAL = 'replay';

export function deliveryWorkflowId(eventId: string): string {
  return `webhook-event:${eventId}`;
}

/** How long a dead-lettered event waits for a replay: the result retention (SPEC 2.6, 7 days). */
export const DEAD_LETTER_REPLAY_WINDOW_MS = 7 * 24 * 3600 * 1000;

export interface DeliveryRun {
  /** 0 for the original run, n for the nth replay. */
  replay: number;
  endpointId: string;
}

export interface WebhookDeliveryInput {
  eventId: string;
  orgId: string;
  workspaceId: string;
  jobId: string;
  /** The stored body bytes, carried so attempts need not read the event record. */
  body?: string;
  /** The run to perform first (the original run, or a replay carried over continue-as-new). */
  run: DeliveryRun;
  /** Eight delays; absent means the spec schedule. Set only by RETRY_DELAYS_MS (tests, demos). */
  retryDelaysMs?: number[];
  replayWindowMs?: number;
  /** False where the Temporal server does not know our search attributes (time-skipping tests). */
  indexed?: boolean;
}

export type DeliveryStatusAttribute = 'delivering' | 'succeeded' | 'dead_lettered' | 'replaying' | 'replay_window_closed';
