import { Context } from '@temporalio/activity';
import type { Deps } from '../core/deps';
import { createContactProvider } from '../core/contactProvider';
import type { ProviderRetryPolicy } from '../core/contactProvider/retryPolicy';
import { findReusablePositions, processChunk, type ChunkInput, type ChunkOutcome } from '../core/jobs/chunkProcessing';
import { finishJob, type CompletedChunk, type FinishedJob } from '../core/jobs/jobFinish';
import { expireJobResult, purgeJobResult } from '../core/jobs/resultRetention';
import type { ContactField } from '../core/contactProvider/contactProvider';
import type { StopReason } from '../core/jobs/jobTypes';
import { recordJobDeliveries } from '../core/jobs/deliveryReservations';
import { recordDelivered } from '../core/talent/quotas';
import { sourcesForOrganization } from '../core/talent/sources';
import { emitJobCompleted, type EagerDeliveryStarts } from '../core/webhooks/jobCompletedEvent';
import { jobsFinished, jobsStarted } from '../core/observability/metrics';
import { activityContext, activityLogger } from './activityContext';

/** What the contact activities read: the worker's settings, clock, logger, Temporal clients, usage counters and caches. */
export type ContactActivityDeps = Pick<
  Deps,
  | 'config'
  | 'now'
  | 'logger'
  | 'temporal'
  | 'usage'
  | 'enabledSources'
  | 'quotaWindows'
  | 'ledgerHeads'
  | 'jobPeople'
  | 'claimGenerations'
  | 'exitPoint'
  | 'stores'
>;

/**
 * Activities of contact-retrieval jobs and their results; each one is safe to retry. `eager`:
 * the worker's own worker, which starts the delivery workflow of an emitted event eagerly; the
 * worker's usage counters (`deps.usage`) are told the credits each chunk charges.
 */
export function createContactActivities(deps: ContactActivityDeps, { eager }: { eager?: EagerDeliveryStarts } = {}) {
  const { config, usage, now } = deps;
  const via = { temporal: deps.temporal, eager, now, stores: deps.stores };
  /**
   * A job's state changes, one line each, from the activities that make them (workflow code
   * replays, so it does not log): started, finished with its status and counts, its
   * job.completed event emitted, its result expired, its result purged.
   */
  const jobLine = (msg: string, fields: Record<string, unknown>): void => activityLogger(deps.logger).info(fields, msg);
  const provider = createContactProvider(config, deps.stores, now);
  const retryPolicy: ProviderRetryPolicy = {
    maxAttempts: config.contactProvider.maxAttempts,
    baseDelayMs: config.contactProvider.retryBaseMs,
    maxDelayMs: 30_000,
  };
  // The worker's caches, built once by its root: the people of the jobs it works on, claim
  // generation hints, the organizations' enabled sources, delivery quota windows and credit ledger heads.
  const { jobPeople: people, claimGenerations: generations, enabledSources: sources, quotaWindows, ledgerHeads } = deps;
  return {
    /** Positions of the job's people the organization retrieved recently (reused, free). */
    async planContactReuse(input: { jobId: string; orgId: string; fields: ContactField[] }): Promise<number[]> {
      const reusable = await findReusablePositions(deps.stores, input, new Date(now()), people);
      if ((activityContext().attempt ?? 1) === 1) jobsStarted.inc();
      jobLine('job started', { job_id: input.jobId, org_id: input.orgId, status: 'running', reusable: reusable.length });
      return reusable;
    },

    async processContactChunk(input: ChunkInput): Promise<ChunkOutcome> {
      const ctx = Context.current();
      return processChunk(input, {
        stores: deps.stores,
        provider,
        retryPolicy,
        heartbeat: () => ctx.heartbeat(),
        signal: ctx.cancellationSignal,
        firstAttempt: ctx.info.attempt === 1,
        onDelivered: ({ orgId, jobId, deliveryQuotaAt, personIds }) =>
          deliveryQuotaAt
            ? recordJobDeliveries(deps.stores, quotaWindows, orgId, jobId, deliveryQuotaAt.getTime(), personIds)
            : // A job accepted before reservations existed: counted today, as it was then.
              quotaWindows.heads.turns.inTurn(`deliveries:${orgId}`, () => recordDelivered(quotaWindows, orgId, personIds, now())),
        usableSources: async (orgId) => new Set((await sourcesForOrganization(config, sources, orgId)).map((s) => s.id)),
        onCharged: usage && (({ orgId, operation, credits }) => usage.countCredits(orgId, operation, credits)),
        people,
        generations,
        ledgerHeads,
        exitPoint: deps.exitPoint,
        now: () => new Date(now()),
      });
    },

    async finishContactRetrievalJob(input: { jobId: string; stop: StopReason | null; completed?: CompletedChunk[] }): Promise<FinishedJob> {
      const finished = await finishJob(deps.stores, input.jobId, input.stop, new Date(now()), input.completed ?? [], people);
      if ((activityContext().attempt ?? 1) === 1) jobsFinished.inc({ status: finished.status });
      jobLine('job finished', {
        job_id: finished.jobId,
        org_id: finished.orgId,
        workspace_id: finished.workspaceId,
        status: finished.status,
        stop: input.stop ?? undefined,
        counts: finished.counts,
        result_expires_at: finished.resultExpiresAt,
      });
      return finished;
    },

    /** Emits the one `job.completed` event of the job (idempotent: the event id is fixed at first emission). */
    async emitContactRetrievalCompleted(job: FinishedJob): Promise<{ eventId: string; deliveryStarted: boolean }> {
      const emitted = await emitJobCompleted(
        config,
        {
          orgId: job.orgId,
          workspaceId: job.workspaceId,
          jobId: job.jobId,
          status: job.status,
          counts: job.counts,
          resultExpiresAt: job.resultExpiresAt ? new Date(job.resultExpiresAt) : null,
          completedAt: new Date(job.completedAt),
        },
        via,
      );
      jobLine('job.completed emitted', {
        job_id: job.jobId,
        org_id: job.orgId,
        workspace_id: job.workspaceId,
        event_id: emitted.eventId,
        status: job.status,
        delivery_started: emitted.deliveryStarted,
      });
      return emitted;
    },

    async expireContactRetrievalResult(input: { jobId: string }): Promise<void> {
      await expireJobResult(deps.stores, input.jobId, new Date(now()));
      jobLine('job result expired', { job_id: input.jobId });
    },

    async purgeContactRetrievalResult(input: { jobId: string }): Promise<void> {
      await purgeJobResult(deps.stores, input.jobId, new Date(now()));
      jobLine('job result purged', { job_id: input.jobId });
    },
  };
}

export type ContactActivities = ReturnType<typeof createContactActivities>;
