import type { JobStores } from './store';

/** The people of a job as accepted; absent fields on jobs accepted before they existed. */
export interface JobPeopleRecord {
  personIds: string[];
  /** Each person's source (parallel to personIds). */
  sources?: string[];
  /** Positions beyond the job's delivery-quota reservation. */
  overQuota: Set<number>;
  deliveryQuotaAt: Date | null;
}

/** How a process reads the people of the jobs it works on. */
export interface JobPeopleReads {
  record(jobId: string): Promise<JobPeopleRecord>;
  /** The job's person ids in order (position = index). */
  people(jobId: string): Promise<string[]>;
  /** Drops what is kept of a job (it finished). */
  forget(jobId: string): void;
}

async function readJobPeople(stores: JobStores, jobId: string): Promise<JobPeopleRecord> {
  const doc = await stores.jobs.findJobPeople(jobId);
  if (!doc) throw new Error(`the people of job ${jobId} are gone`);
  return {
    personIds: doc.personIds,
    sources: doc.sources?.length === doc.personIds.length ? doc.sources : undefined,
    overQuota: new Set(doc.overQuota ?? []),
    deliveryQuotaAt: doc.deliveryQuotaAt ?? null,
  };
}

/** Jobs kept at once: a worker runs a few jobs' chunks at a time. */
const KEPT_JOBS = 16;

/**
 * People lists are immutable, so a worker keeps the few it is working on (each chunk of a job
 * reads them). Built once per worker by its composition root (activities/contacts.ts).
 */
export function createJobPeopleReads(stores: JobStores): JobPeopleReads {
  const kept = new Map<string, JobPeopleRecord>();
  const record = async (jobId: string) => {
    const cached = kept.get(jobId);
    if (cached) return cached;
    const read = await readJobPeople(stores, jobId);
    if (kept.size >= KEPT_JOBS) kept.delete(kept.keys().next().value!);
    kept.set(jobId, read);
    return read;
  };
  return { record, people: async (jobId) => (await record(jobId)).personIds, forget: (jobId) => void kept.delete(jobId) };
}

/** Reads every time: for one-off reads (a finish outside a worker, a test). */
export function uncachedJobPeople(stores: JobStores): JobPeopleReads {
  return {
    record: (jobId) => readJobPeople(stores, jobId),
    people: async (jobId) => (await readJobPeople(stores, jobId)).personIds,
    forget: () => undefined,
  };
}
