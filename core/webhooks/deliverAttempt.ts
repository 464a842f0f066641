import type { Config } from '../config';
import type { PurposeKeys } from '../crypto/purposeKeys';
import type { Logger } from '../observability/logger';
import { webhookAttemptDuration, webhookAttempts, webhookDeadLetters } from '../observability/metrics';
import type { OutboundConnections } from '../outbound/outboundConnections';
import type { TrustAnchors } from '../outbound/trustAnchors';
import type { LookupAll } from '../outbound/destinationPolicy';
import { systemDestinationLookup } from '../outbound/destinationResolver';
import type { DeliveryRun } from './deliveryWorkflowContract';
import { MAX_ATTEMPTS } from './retrySchedule';
import { sendAttempt, type AttemptOutcome } from './sendAttempt';
import { signedHeaders } from './signPayload';
import type { WebhookStores } from './store/webhookStore';
import type { DeliveryRecord } from './store/records';
import { recordAttempt } from './webhookDeliveries';
import { liveSecrets, openSecrets, type StoredSecret } from './webhookSecrets';
import { deliveryView } from './deliveryView';

/**
 * The delivery attempt use case: a single attempt, recorded. The attempt is claimed before the
 * POST and its record written after it, before the activity returns, so the workflow never
 * moves on without it, and a retried activity that finds its attempt already begun never
 * POSTs a second time.
 *
 * The endpoint named by the run is read afresh and must be active AND belong to the event's
 * organization and workspace: a run is a workflow input or a replay signal, and a signal
 * naming another tenant's endpoint (forged, or a bug) must never send this event there. Such
 * an attempt sends nothing and fails with `endpoint_mismatch`.
 */
export interface AttemptInput {
  eventId: string;
  /** The event's fixed fields and body bytes as stored at emission; read from the store when absent. */
  event?: { orgId: string; workspaceId: string; jobId: string; body: string };
  run: DeliveryRun;
  attempt: number;
  /** Workflow time at which the attempt was due. */
  scheduledAt: number;
  /** Delay the workflow will wait after this attempt if it fails; null after the last. */
  nextDelayMs: number | null;
}

export interface AttemptResult {
  ok: boolean;
  deliveryId: string;
  status: string;
}

export interface DeliverAttemptDeps {
  /** The app's stores: the event, its endpoint and the attempt records. */
  stores: WebhookStores;
  /** The time of an attempt: its webhook-timestamp and which secrets are live. */
  now: () => Promise<Date> | Date;
  /** The DNS lookup of the destination check before each attempt; the system's by default. */
  destinationLookup?: LookupAll;
  /** The app's trust anchors for the attempts. */
  trustAnchors: TrustAnchors;
  /** The app's keep-alive pools for the attempts. */
  outbound: OutboundConnections;
  /** The app's purpose keys: they open the endpoints' sealed signing secrets. */
  purposeKeys: PurposeKeys;
}

/** A missing event: retrying cannot make it appear (the activity makes this non-retryable). */
export class EventMissing extends Error {
  constructor(eventId: string) {
    super(`webhook event ${eventId} does not exist`);
    this.name = 'EventMissing';
  }
}

/** The endpoint an attempt may use, or why it may not (recorded as the attempt's `error_code`). */
export function endpointVerdict(
  endpoint: { orgId: string; workspaceId: string; state: string } | null,
  event: { orgId: string; workspaceId: string },
): 'ok' | 'endpoint_inactive' | 'endpoint_mismatch' {
  if (!endpoint) return 'endpoint_inactive';
  if (endpoint.orgId !== event.orgId || endpoint.workspaceId !== event.workspaceId) return 'endpoint_mismatch';
  return endpoint.state === 'active' ? 'ok' : 'endpoint_inactive';
}

/** Where an attempt runs, for its log line: the delivery workflow's id when run as its activity, and the logger bound to it. */
export interface AttemptContext {
  workflowId?: string;
  logger: Logger;
}

/**
 * One line and the metrics of an attempt this run made (not of one it found already recorded):
 * an operator follows an event from these lines by `event_id`, a job by `job_id`.
 */
function observeAttempt(record: DeliveryRecord, context: AttemptContext): void {
  const outcome = record.status;
  webhookAttempts.inc({ outcome, error_code: record.errorCode ?? '' });
  if (record.durationMs !== null && record.durationMs !== undefined) webhookAttemptDuration.observe({ outcome }, record.durationMs / 1000);
  if (outcome === 'dead_lettered') webhookDeadLetters.inc();
  context.logger[outcome === 'succeeded' ? 'info' : 'warn'](
    // The attempt as the API shows it, and where it ran: the operator reads the same fields the customer does.
    { ...deliveryView(record), org_id: record.orgId, workspace_id: record.workspaceId, workflow_id: context.workflowId, outcome },
    'webhook delivery attempt',
  );
}

export function createAttemptDeliverer(config: Config, deps: DeliverAttemptDeps) {
  const { now, stores } = deps;

  /** The event-level consequence of a recorded attempt; safe to repeat on a retried activity. */
  async function settle(record: DeliveryRecord, logger: Logger): Promise<AttemptResult> {
    // The event's own status only tracks what replays need (dead-lettered or not); whether it
    // was delivered is in its delivery records, which saves a write on every success.
    if (record.status === 'dead_lettered') {
      await stores.webhooks.events.markEventDeadLettered(record.eventId, record.replay, record.attemptedAt);
      logger.warn({ eventId: record.eventId, orgId: record.orgId, endpointId: record.endpointId, replay: record.replay }, 'webhook event dead-lettered');
    }
    return { ok: record.status === 'succeeded', deliveryId: record._id, status: record.status };
  }

  async function attemptDelivery(input: AttemptInput, context: AttemptContext): Promise<AttemptResult> {
    const { logger } = context;
    const event = input.event ?? (await stores.webhooks.events.eventById(input.eventId));
    // Not an infrastructure hiccup: retrying cannot make a missing event appear.
    if (!event) throw new EventMissing(input.eventId);
    const at = await now();
    const key = { eventId: input.eventId, replay: input.run.replay, attempt: input.attempt };
    let outcome: AttemptOutcome | { ok: false; errorCode: string; responseStatus: null; durationMs: number | null };
    if (!(await stores.webhooks.deliveries.claimAttempt(key, at))) {
      const earlier = await stores.webhooks.deliveries.findAttempt(key);
      if (earlier) return settle(earlier, logger);
      // An earlier run of this activity began the attempt and may have sent it: never POST
      // again for one attempt; it counts as failed and the schedule goes on.
      outcome = { ok: false, errorCode: 'attempt_interrupted', responseStatus: null, durationMs: null };
    } else {
      // Read afresh on every attempt: a re-pointed endpoint gets its new URL, an inactive one nothing.
      const endpoint = await stores.webhooks.endpoints.endpointById(input.run.endpointId);
      const verdict = endpointVerdict(endpoint, event);
      if (verdict === 'endpoint_mismatch') {
        logger.warn(
          { eventId: input.eventId, orgId: event.orgId, endpointId: input.run.endpointId },
          'webhook attempt refused: the endpoint belongs to another workspace',
        );
      }
      if (!endpoint || verdict !== 'ok') {
        outcome = { ok: false, errorCode: verdict === 'ok' ? 'endpoint_inactive' : verdict, responseStatus: null, durationMs: 0 };
      } else {
        const secrets = openSecrets(deps.purposeKeys, endpoint._id, liveSecrets(endpoint.secrets as StoredSecret[], at));
        outcome = await sendAttempt(
          { url: endpoint.url, headers: { ...signedHeaders(secrets, input.eventId, at, event.body) }, body: event.body },
          {
            lookupAll: deps.destinationLookup ?? systemDestinationLookup,
            allowedCidrs: config.webhooks.allowedCidrs,
            ca: deps.trustAnchors.of(config.webhooks.extraCaFile),
            connections: deps.outbound,
          },
        );
      }
    }

    const status = outcome.ok ? 'succeeded' : input.attempt >= MAX_ATTEMPTS ? 'dead_lettered' : 'failed';
    const finishedAt = at.getTime() + (outcome.durationMs ?? 0);
    const record = await recordAttempt(stores, {
      ...key,
      endpointId: input.run.endpointId,
      orgId: event.orgId,
      workspaceId: event.workspaceId,
      jobId: event.jobId,
      status,
      responseStatus: outcome.responseStatus,
      errorCode: outcome.ok ? null : outcome.errorCode,
      durationMs: outcome.durationMs,
      scheduledAt: new Date(input.scheduledAt),
      attemptedAt: at,
      nextAttemptAt: !outcome.ok && input.nextDelayMs !== null ? new Date(finishedAt + input.nextDelayMs) : null,
    });
    observeAttempt(record, context);
    return settle(record, logger);
  }

  return attemptDelivery;
}
