import { isTemporalUnanswered } from '../temporal/deadline';
import { RUNNING_JOB_SLOTS } from './jobRules';
import type { JobStores } from './store';

/**
 * Running-job slots (SPEC 8.1: two running contact-retrieval jobs per organization). A slot is
 * a document whose `_id` is `<org_id>:<n>`; inserting it is the claim, so two API replicas can
 * never both hold slot n. A slot is released when its job finishes, whatever the way; a slot
 * whose job finished or whose workflow is gone is reclaimed by the next claimant.
 */

/** How long a fresh claim is trusted without looking at Temporal (creation takes a moment). */
export const SLOT_CLAIM_GRACE_MS = 60_000;

export interface SlotHolder {
  slot: number;
  jobId: string;
  claimedAt: Date;
}

/** Whether the job's workflow is still running; false when it does not exist. */
export type WorkflowProbe = (jobId: string) => Promise<boolean>;

function slotId(orgId: string, slot: number): string {
  return `${orgId}:${slot}`;
}

async function tryClaim(stores: JobStores, orgId: string, jobId: string, now: Date): Promise<number | null> {
  for (let slot = 0; slot < RUNNING_JOB_SLOTS; slot++) {
    if (await stores.jobs.insertJobSlot({ _id: slotId(orgId, slot), orgId, slot, jobId, claimedAt: now })) return slot;
  }
  return null;
}

/** Ends a job still recorded as running whose workflow is gone (its slot was reclaimed). */
export type AbandonedJobHandler = (jobId: string) => Promise<void>;

/** Claims a free slot for the job; null when both are held by live jobs. */
export async function claimJobSlot(
  stores: JobStores,
  orgId: string,
  jobId: string,
  workflowRunning: WorkflowProbe,
  now: Date,
  onAbandoned?: AbandonedJobHandler,
): Promise<number | null> {
  const slot = await tryClaim(stores, orgId, jobId, now);
  if (slot !== null) return slot;
  const reclaimed = await reclaimStaleSlots(stores, orgId, workflowRunning, now, onAbandoned);
  return reclaimed > 0 ? tryClaim(stores, orgId, jobId, now) : null;
}

/** Frees every slot of the job (idempotent). */
export async function releaseJobSlot(stores: JobStores, orgId: string, jobId: string): Promise<void> {
  await stores.jobs.deleteJobSlotsOfJob(orgId, jobId);
}

export async function jobSlotHolders(stores: JobStores, orgId: string): Promise<SlotHolder[]> {
  const docs = await stores.jobs.jobSlotsOf(orgId);
  return docs.map((d) => ({ slot: d.slot, jobId: d.jobId, claimedAt: d.claimedAt }));
}

/** Whether a holder no longer stands for a running job. */
export async function isStaleHolder(stores: JobStores, h: SlotHolder, workflowRunning: WorkflowProbe, now: Date): Promise<boolean> {
  const job = await stores.jobs.findJob({ _id: h.jobId });
  const fresh = now.getTime() - h.claimedAt.getTime() < SLOT_CLAIM_GRACE_MS;
  if (!job) return !fresh;
  if (job.status !== 'running') return true;
  if (fresh) return false;
  // Accepted, its workflow still to be started by the outbox (Temporal was down): a live job, not an abandoned one.
  if (job.outboxDue && !job.workflowStartedAt) return false;
  try {
    return !(await workflowRunning(h.jobId));
  } catch (err) {
    // Temporal cannot say (down, slow): the holder counts as live; the claimant gets the cap's 429, not a wait or a 500.
    if (isTemporalUnanswered(err)) return false;
    throw err;
  }
}

/** Deletes stale slots (only if still held by the same job); returns how many were freed. */
export async function reclaimStaleSlots(
  stores: JobStores,
  orgId: string,
  workflowRunning: WorkflowProbe,
  now: Date,
  onAbandoned?: AbandonedJobHandler,
): Promise<number> {
  let freed = 0;
  for (const h of await jobSlotHolders(stores, orgId)) {
    if (!(await isStaleHolder(stores, h, workflowRunning, now))) continue;
    const deleted = await stores.jobs.deleteJobSlot(slotId(orgId, h.slot), h.jobId);
    freed += deleted;
    // Nobody will finish a job whose workflow is gone: without this it would read `running` forever.
    if (deleted && onAbandoned) {
      const job = await stores.jobs.findJob({ _id: h.jobId });
      if (job?.status === 'running') await onAbandoned(h.jobId);
    }
  }
  return freed;
}
