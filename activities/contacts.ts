import { Context } from '@temporalio/activity';
import type { Config } from '../core/config';
import { createContactProvider } from '../core/contactProvider';
import type { ProviderRetryPolicy } from '../core/contactProvider/retryPolicy';
import { findReusablePositions, processChunk, type ChunkInput, type ChunkOutcome } from '../core/jobs/chunkProcessing';
import { finishJob, type CompletedChunk, type FinishedJob } from '../core/jobs/jobFinish';
import { expireJobResult, purgeJobResult } from '../core/jobs/resultRetention';
import { inTurn } from '../core/inTurn';
import type { ContactField, StopReason } from '../core/jobs/jobTypes';
import { recordJobDeliveries } from '../core/jobs/deliveryReservations';
import { recordDelivered } from '../core/talent/quotas';
import { sourcesForOrganization } from '../core/talent/sources';
import { emitJobCompleted } from '../core/webhooks/jobCompletedEvent';

/** Activities of contact-retrieval jobs and their results; each one is safe to retry. */
export function createContactActivities(config: Config) {
  const provider = createContactProvider(config);
  const retryPolicy: ProviderRetryPolicy = {
    maxAttempts: config.contactProvider.maxAttempts,
    baseDelayMs: config.contactProvider.retryBaseMs,
    maxDelayMs: 30_000,
  };
  return {
    /** Positions of the job's people the organization retrieved recently (reused, free). */
    async planContactReuse(input: { jobId: string; orgId: string; fields: ContactField[] }): Promise<number[]> {
      return findReusablePositions(input);
    },

    async processContactChunk(input: ChunkInput): Promise<ChunkOutcome> {
      const ctx = Context.current();
      return processChunk(input, {
        provider,
        retryPolicy,
        heartbeat: () => ctx.heartbeat(),
        signal: ctx.cancellationSignal,
        firstAttempt: ctx.info.attempt === 1,
        onDelivered: ({ orgId, jobId, deliveryQuotaAt, personIds }) =>
          deliveryQuotaAt
            ? recordJobDeliveries(orgId, jobId, deliveryQuotaAt.getTime(), personIds)
            : // A job accepted before reservations existed: counted today, as it was then.
              inTurn(`deliveries:${orgId}`, () => recordDelivered(orgId, personIds)),
        usableSources: async (orgId) => new Set((await sourcesForOrganization(config, orgId)).map((s) => s.id)),
      });
    },

    async finishContactRetrievalJob(input: { jobId: string; stop: StopReason | null; completed?: CompletedChunk[] }): Promise<FinishedJob> {
      return finishJob(input.jobId, input.stop, new Date(), input.completed ?? []);
    },

    /** Emits the one `job.completed` event of the job (idempotent: the event id is fixed at first emission). */
    async emitContactRetrievalCompleted(job: FinishedJob): Promise<{ eventId: string; deliveryStarted: boolean }> {
      return emitJobCompleted(config, {
        orgId: job.orgId,
        workspaceId: job.workspaceId,
        jobId: job.jobId,
        status: job.status,
        counts: job.counts,
        resultExpiresAt: job.resultExpiresAt ? new Date(job.resultExpiresAt) : null,
        completedAt: new Date(job.completedAt),
      });
    },

    async expireContactRetrievalResult(input: { jobId: string }): Promise<void> {
      await expireJobResult(input.jobId);
    },

    async purgeContactRetrievalResult(input: { jobId: string }): Promise<void> {
      await purgeJobResult(input.jobId);
    },
  };
}

export type ContactActivities = ReturnType<typeof createContactActivities>;
