import { findJobPeople } from './store';

/** The people of a job as accepted; absent fields on jobs accepted before they existed. */
export interface JobPeopleRecord {
  personIds: string[];
  /** Each person's source (parallel to personIds). */
  sources?: string[];
  /** Positions beyond the job's delivery-quota reservation. */
  overQuota: Set<number>;
  deliveryQuotaAt: Date | null;
}

/** People lists are immutable: a process keeps the few it is working on. */
const peopleCache = new Map<string, JobPeopleRecord>();

export async function jobPeopleRecord(jobId: string): Promise<JobPeopleRecord> {
  const cached = peopleCache.get(jobId);
  if (cached) return cached;
  const doc = await findJobPeople(jobId);
  if (!doc) throw new Error(`the people of job ${jobId} are gone`);
  const record: JobPeopleRecord = {
    personIds: doc.personIds,
    sources: doc.sources?.length === doc.personIds.length ? doc.sources : undefined,
    overQuota: new Set(doc.overQuota ?? []),
    deliveryQuotaAt: doc.deliveryQuotaAt ?? null,
  };
  if (peopleCache.size >= 16) peopleCache.delete(peopleCache.keys().next().value!);
  peopleCache.set(jobId, record);
  return record;
}

export async function jobPeople(jobId: string): Promise<string[]> {
  return (await jobPeopleRecord(jobId)).personIds;
}

/** Forgets a finished job's people (its people document is deleted with it). */
export function forgetPeople(jobId: string): void {
  peopleCache.delete(jobId);
}
