import { cancelContactRetrievalJob, jobView } from '../../core/jobs/contactRetrievalJobs';
import { RUNNING_JOB_SLOTS } from '../../core/jobs/jobRules';
import { jobSlotHolders } from '../../core/jobs/jobSlots';
import type { JobStores } from '../../core/jobs/store';
import { dailyJobCap, setDailyJobCap } from '../../core/jobs/dailyJobCap';
import { UsageError, requireFlag, type AdminCommand } from './command';
import { recordOperatorChange } from './operatorAudit';

/** Operator commands for contact-retrieval jobs: read one, cancel one, see an organization's running-job slots and set its daily job cap. */
async function loadJob(stores: JobStores, jobId: string) {
  const job = await stores.jobs.findJob({ _id: jobId });
  if (!job) throw new Error(`job ${jobId} does not exist`);
  return job;
}

export const jobsCommands: Record<string, AdminCommand> = {
  'job show': {
    usage: 'job show --job-id J',
    run: async (f, { stores }) => {
      const job = await loadJob(stores, requireFlag(f, 'job-id'));
      return {
        ...(await jobView(stores, job)),
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
    run: async (f, deps) => {
      const jobId = requireFlag(f, 'job-id');
      const cancelled = await cancelContactRetrievalJob(deps, null, jobId);
      const { orgId } = await loadJob(deps.stores, jobId);
      await recordOperatorChange(deps, { orgId, action: 'job.cancelled', target: jobId, after: { job_id: jobId, status: cancelled.status } });
      return cancelled;
    },
  },
  'job slots': {
    usage: 'job slots --org O',
    run: async (f, { stores }) => {
      const orgId = requireFlag(f, 'org');
      const holders = await jobSlotHolders(stores, orgId);
      const jobs = await stores.jobs.jobsByIds(holders.map((h) => h.jobId));
      const status = new Map(jobs.map((j) => [j._id, j.status]));
      return {
        org_id: orgId,
        limit: RUNNING_JOB_SLOTS,
        slots: holders.map((h) => ({ slot: h.slot, job_id: h.jobId, job_status: status.get(h.jobId) ?? null, claimed_at: h.claimedAt.toISOString() })),
      };
    },
  },
  'job daily-cap': {
    usage: 'job daily-cap --org O [--jobs-per-day N|default]',
    run: async (f, { config, stores }) => {
      const orgId = requireFlag(f, 'org');
      const raw = f['jobs-per-day'];
      if (raw === undefined) return { org_id: orgId, jobs_per_day: await dailyJobCap(stores, config, orgId) };
      if (raw === 'default') return setDailyJobCap(stores, config, orgId, null);
      const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(n) || n < 1) throw new UsageError('--jobs-per-day must be a positive integer or `default`');
      return setDailyJobCap(stores, config, orgId, n);
    },
  },
};
