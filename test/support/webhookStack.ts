import type { JobCounts } from '../../core/jobs/jobTypes';
import { emitJobCompleted } from '../../core/webhooks/jobCompletedEvent';
import type { EmittedEvent, JobCompletedInput } from '../../core/webhooks/webhookEvents';
import { startHttpsReceiver, type HttpsReceiver } from './httpsReceiver';
import { startTestApi, type TestApi } from './testApi';
import { startTestWorker, type TestWorker } from './testWorker';

export interface WebhookStack {
  srv: TestApi;
  worker: TestWorker;
  receiver: HttpsReceiver;
  /** Stops what started, worker first (so no attempt is left running against a closed API or receiver). */
  close: () => Promise<void>;
}

/**
 * The API and a worker that may deliver to a loopback HTTPS receiver: loopback addresses are
 * allowed as destinations and the receiver's CA is trusted, the two settings a real
 * destination never needs. `env` adds settings (e.g. short retry delays).
 */
export async function startWebhookStack(env: Record<string, string> = {}): Promise<WebhookStack> {
  const started: Partial<Omit<WebhookStack, 'close'>> = {};
  const close = async () => {
    await started.worker?.stop();
    await started.srv?.close();
    await started.receiver?.close();
  };
  try {
    started.receiver = await startHttpsReceiver();
    started.srv = await startTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', WEBHOOK_EXTRA_CA_FILE: started.receiver.caFile, ...env });
    started.worker = await startTestWorker(started.srv.config);
  } catch (err) {
    await close();
    throw err;
  }
  return { srv: started.srv, worker: started.worker, receiver: started.receiver, close };
}

/**
 * A job of `tenant` that just finished, its `job.completed` event emitted through the app's
 * Temporal clients as the worker emits it: completed with a result readable for 7 days unless
 * `finish` says otherwise. The job id is `job_<tag>_<now>`.
 */
export function emitFinishedJob(
  srv: TestApi,
  tenant: { orgId: string; workspaceId: string },
  tag: string,
  counts: JobCounts,
  finish: Partial<Pick<JobCompletedInput, 'status' | 'resultExpiresAt'>> = {},
): Promise<EmittedEvent> {
  return emitJobCompleted(
    srv.config,
    {
      orgId: tenant.orgId,
      workspaceId: tenant.workspaceId,
      jobId: `job_${tag}_${Date.now()}`,
      status: finish.status ?? 'completed',
      counts,
      resultExpiresAt: finish.resultExpiresAt === undefined ? new Date(Date.now() + 7 * 86400_000) : finish.resultExpiresAt,
      completedAt: new Date(),
    },
    { temporal: srv.deps.temporal, now: srv.deps.now, stores: srv.deps.stores },
  );
}
