import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { createHmac } from 'node:crypto';
import { isDuplicateKeyError } from '../store/connection';
import { withTemporalDeadline } from '../temporal/deadline';
import { SA } from '../temporal/searchAttributes';
import type { FinalJobStatus, JobCounts } from '../jobs/jobTypes';
import { DELIVERY_WORKFLOW_TYPE, deliveryWorkflowId, type WebhookDeliveryInput } from './deliveryWorkflowContract';
import { jobCompletedBody } from './eventEnvelope';
import type { WebhookStores } from './store/webhookStore';
import type { EventRecord } from './store/records';
import { activeEndpointOf } from './webhookEndpoints';

/** A finished job, as its job.completed event reports it (core/webhooks/jobCompletedEvent.ts emits it). */
export interface JobCompletedInput {
  orgId: string;
  workspaceId: string;
  jobId: string;
  status: FinalJobStatus;
  counts: JobCounts;
  /** When the result stops being readable; null when the job carries no result. */
  resultExpiresAt: Date | null;
  completedAt: Date;
}

export interface EmittedEvent {
  eventId: string;
  /** False when no endpoint was active: the result is still readable, nothing is sent. */
  deliveryStarted: boolean;
}

/**
 * Emission of `job.completed` (SPEC 6): one event record per job, written once with its final
 * body bytes, and at most one delivery workflow per event. Safe to call again for the same
 * job (the job's finishing activity may be retried): the second call finds the first record.
 */
export interface EmitDeps {
  /** The app's stores: the event record and the active endpoint. */
  stores: WebhookStores;
  client: Client;
  /** Keys the event id derived from the job id (SECRETS_ENCRYPTION_KEY): opaque, yet stable. */
  idKey: Buffer;
  taskQueue: string;
  retryDelaysMs?: readonly number[];
  /** Ask for the first workflow task in the start response: only with a worker's own connection. */
  eagerStart?: boolean;
  /** Off only where the Temporal server does not know our search attributes. */
  searchAttributes?: boolean;
  now: () => Date;
  /** Limit of the workflow start (TEMPORAL_CALL_TIMEOUT_MS); the emission is retried by its caller past it. */
  startLimitMs?: number;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * The event id of a job: `evt_` + 22 base62 characters of an HMAC of the job id. A retried
 * emission computes the same id, so the first write wins by primary key and the lookup on the
 * retry is by id (FerretDB only uses the primary key for lookups).
 */
export function eventIdForJob(jobId: string, idKey: Buffer): string {
  const mac = createHmac('sha256', idKey).update(`job.completed:${jobId}`).digest();
  let id = 'evt_';
  for (let i = 0; i < 22; i++) id += BASE62[mac[i] % 62];
  return id;
}

async function recordEvent(stores: WebhookStores, input: JobCompletedInput, now: Date, idKey: Buffer): Promise<EventRecord> {
  const eventId = eventIdForJob(input.jobId, idKey);
  // Insert first: a retried emission fails on the primary key and reads the first record.
  // The endpoint active at this moment receives the event; none active means no delivery.
  const endpoint = await activeEndpointOf(stores, input.workspaceId);
  const body = jobCompletedBody({
    eventId,
    emittedAt: now,
    jobId: input.jobId,
    status: input.status,
    counts: input.counts,
    resultExpiresAt: input.resultExpiresAt,
  });
  try {
    return await stores.webhooks.events.insertEvent({
      _id: eventId,
      jobId: input.jobId,
      orgId: input.orgId,
      workspaceId: input.workspaceId,
      endpointId: endpoint?._id ?? null,
      body,
      resultExpiresAt: input.resultExpiresAt,
      status: endpoint ? 'delivering' : 'no_endpoint',
    });
  } catch (err) {
    // A concurrent emission for the same job won: its record (and body bytes) is the event.
    // (Unique on jobId too, so even an id derived under another key cannot make a second.)
    if (!isDuplicateKeyError(err)) throw err;
    const winner = (await stores.webhooks.events.eventById(eventId)) ?? (await stores.webhooks.events.eventOfJob(input.jobId));
    if (!winner) throw err;
    return winner;
  }
}

export async function emitJobCompletedWith(deps: EmitDeps, input: JobCompletedInput): Promise<EmittedEvent> {
  const now = deps.now();
  const event = await recordEvent(deps.stores, input, now, deps.idKey);
  const endpointId = event.endpointId;
  if (!endpointId) return { eventId: event._id, deliveryStarted: false };
  const workflowInput: WebhookDeliveryInput = {
    eventId: event._id,
    orgId: event.orgId,
    workspaceId: event.workspaceId,
    jobId: event.jobId,
    body: event.body,
    run: { replay: 0, endpointId },
    ...(deps.retryDelaysMs ? { retryDelaysMs: [...deps.retryDelaysMs] } : {}),
    ...(deps.searchAttributes === false ? { indexed: false } : {}),
  };
  try {
    const start = () =>
      deps.client.workflow.start(DELIVERY_WORKFLOW_TYPE, {
        taskQueue: deps.taskQueue,
        workflowId: deliveryWorkflowId(event._id),
        args: [workflowInput],
        // Never a second workflow for one event, not even after the first has closed.
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        ...(deps.eagerStart ? { requestEagerStart: true } : {}),
        ...(deps.searchAttributes === false
          ? {}
          : {
              typedSearchAttributes: [
                { key: SA.orgId, value: event.orgId },
                { key: SA.workspaceId, value: event.workspaceId },
                { key: SA.endpointId, value: endpointId },
                { key: SA.jobId, value: event.jobId },
                { key: SA.deliveryStatus, value: 'delivering' },
              ],
            }),
      });
    await withTemporalDeadline(deps.client.connection, { what: `the delivery start of ${event._id}`, limitMs: deps.startLimitMs ?? 10_000 }, start);
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return { eventId: event._id, deliveryStarted: true };
}
