import { config } from '../../core/config';
import { cancelContactRetrievalJob, jobView } from '../../core/jobs/contactRetrievalJobs';
import { RUNNING_JOB_SLOTS } from '../../core/jobs/jobRules';
import { jobSlotHolders } from '../../core/jobs/jobSlots';
import { ContactRetrievalJob } from '../../core/jobs/models';
import { requireFlag, type AdminCommand } from './command';

/** Operator commands for contact-retrieval jobs: read one, cancel one, see an organization's running-job slots. */
async function loadJob(jobId: string) {
  const job = await ContactRetrievalJob.findById(jobId).lean();
  if (!job) throw new Error(`job ${jobId} does not exist`);
  return job;
}

export const jobsCommands: Record<string, AdminCommand> = {
  'job show': {
    usage: 'job show --job-id J',
    run: async (f) => {
      const job = await loadJob(requireFlag(f, 'job-id'));
      return {
        ...(await jobView(job)),
        org_id: job.orgId,
        workspace_id: job.workspaceId,
        key_id: job.keyId,
        workflow_id: job.workflowId,
        stop_reason: job.stopReason ?? null,
        result_purge_at: job.resultPurgeAt ? job.resultPurgeAt.toISOString() : null,
        result_purged_at: job.resultPurgedAt ? job.resultPurgedAt.toISOString() : null,
      };
    },
  },
  'job cancel': {
    usage: 'job cancel --job-id J',
    needsTemporal: true,
    run: (f) => cancelContactRetrievalJob(config(), null, requireFlag(f, 'job-id')),
  },
  'job slots': {
    usage: 'job slots --org O',
    run: async (f) => {
      const orgId = requireFlag(f, 'org');
      const holders = await jobSlotHolders(orgId);
      const jobs = await ContactRetrievalJob.find({ _id: { $in: holders.map((h) => h.jobId) } }, { status: 1 }).lean();
      const status = new Map(jobs.map((j) => [j._id, j.status]));
      return {
        org_id: orgId,
        limit: RUNNING_JOB_SLOTS,
        slots: holders.map((h) => ({ slot: h.slot, job_id: h.jobId, job_status: status.get(h.jobId) ?? null, claimed_at: h.claimedAt.toISOString() })),
      };
    },
  },
};
