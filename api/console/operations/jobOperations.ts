import { z } from 'zod';
import { cancelContactRetrievalJob, type JobView } from '../../../core/jobs/contactRetrievalJobs';
import { PERMISSIONS } from '../../../core/keys/permissions';
import { defineConsoleOperation } from '../consoleOperation';

/**
 * "Cancel job" on a job's page: the same core function as POST /v1/contact-retrieval-jobs/{id}/cancel,
 * with the same permission (`jobs.v1:write`) and the same audit entry (`job.cancelled`). The
 * person's principal finds jobs of their workspace only: another's is the same 404 as an absent one.
 */
const cancelJob = defineConsoleOperation({
  operation: 'console.jobs.cancel',
  path: '/console/jobs/:job_id/cancel',
  summary: 'Cancel job',
  permission: PERMISSIONS.jobsWrite,
  params: z.object({ job_id: z.string().min(1).max(128) }),
  body: z.object({}).strict(),
  handler: async ({ principal, params, deps }) => ({ status: 202, body: await cancelContactRetrievalJob(deps, principal, params.job_id) }),
  audit: {
    change: ({ params }, result) => ({
      action: 'job.cancelled',
      target: params.job_id,
      after: { job_id: params.job_id, status: (result.body as JobView).status },
    }),
  },
});

export const jobOperations = [cancelJob];
