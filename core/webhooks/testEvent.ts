import type { KeyPrincipal } from '../keys/apiKeys';
import { newId } from '../ids';
import { Problem } from '../problems';
import { emitJobCompleted } from './jobCompletedEvent';
import { activeEndpointOf } from './webhookEndpoints';
import type { WebhookStores } from './store/webhookStore';
import type { JobTemporalDeps } from '../jobs/contactRetrievalJobs';
import { contactRetrievalWorkflowId, countsFromTally, jobOwnerOf, resultTimes } from '../jobs/jobRules';
import type { JobStores } from '../jobs/store';

/**
 * "Send test event" (DECISIONS.md "Webhooks page"): a test job of no people, finished as it is
 * recorded, so it costs nothing and reaches no contact provider, and its `job.completed` is
 * emitted like any job's: the same event record, the same signed body and the same delivery
 * workflow to the workspace's active endpoint, whose attempts the console then shows. It is a
 * real job of the workspace (its page and result read like any other), so the receiver can
 * follow the event's `result_url` as it would in production.
 */
export interface SentTestEvent {
  job_id: string;
  event_id: string;
  endpoint_id: string;
  url: string;
}

export async function sendTestEvent(
  deps: JobTemporalDeps & { readonly now: () => number; readonly stores: WebhookStores & JobStores },
  principal: KeyPrincipal,
  endpointId: string,
): Promise<SentTestEvent> {
  const endpoint = await activeEndpointOf(deps.stores, principal.workspaceId);
  // Only to the endpoint the caller looked at: a test meant for a disabled one must not reach its successor.
  if (!endpoint || endpoint._id !== endpointId) {
    throw new Problem('invalid_state_transition', 'Only the active endpoint of a workspace receives a test event: enable this endpoint first.');
  }
  const jobId = newId('job');
  const completedAt = new Date(deps.now());
  const counts = countsFromTally(0, {});
  const { resultExpiresAt, resultPurgeAt } = resultTimes(completedAt, counts);
  await deps.stores.jobs.insertJob({
    _id: jobId,
    ...jobOwnerOf(principal),
    status: 'completed',
    fields: ['email'],
    searchId: null,
    requested: 0,
    counts,
    workflowId: contactRetrievalWorkflowId(jobId),
    completedAt,
    resultExpiresAt,
    resultPurgeAt,
    test: true,
  });
  const emitted = await emitJobCompleted(
    deps.config,
    { orgId: principal.orgId, workspaceId: principal.workspaceId, jobId, status: 'completed', counts, resultExpiresAt, completedAt },
    { temporal: deps.temporal, now: deps.now, stores: deps.stores },
  );
  return { job_id: jobId, event_id: emitted.eventId, endpoint_id: endpoint._id, url: endpoint.url };
}
