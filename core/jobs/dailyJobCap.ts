import type { Config } from '../config';
import { retryLater } from '../problems';
import { ReadCache, waitUntilReadCachesExpire } from '../store/readCache';
import type { TenancyStores } from '../tenancy/store';
import { utcDay } from './jobRules';
import type { JobStore, JobStores } from './store';

/**
 * The daily job cap: an organization may have at most N jobs accepted per UTC day
 * (CONTACT_JOBS_PER_DAY, or the operator's figure for it). Each accepted job holds one slot
 * document `<org_id>:<day>:<n>` with n < N; inserting it is the claim, so replicas can never
 * admit more than N together (FerretDB applies unique inserts atomically, not conditional
 * updates). A job refused by a later check gives its slot back.
 */

const DAY_MS = 24 * 3600_000;

/** CONTACT_JOBS_PER_DAY, and READ_CACHE_MS for the operator's figures. */
export type DailyJobCapSettings = Pick<Config, 'contactJobs' | 'readCacheMs'>;

/**
 * One app's reads of the operator's daily job caps, each organization's read at most once per
 * READ_CACHE_MS (see readCache.ts). The app's composition root builds one (core/deps.ts).
 */
export class DailyJobCapReads {
  private readonly reads = new ReadCache<number | null>();

  constructor(private readonly store: JobStore) {}

  /** The organization's daily job cap. */
  async capOf(settings: DailyJobCapSettings, orgId: string): Promise<number> {
    const own = await this.reads.get(orgId, settings.readCacheMs, () => this.store.findDailyJobCap(orgId));
    return own ?? settings.contactJobs.jobsPerDay;
  }
}

/** The organization's daily job cap as stored now (the operator's view). */
export async function dailyJobCap(stores: JobStores, settings: DailyJobCapSettings, orgId: string): Promise<number> {
  return (await stores.jobs.findDailyJobCap(orgId)) ?? settings.contactJobs.jobsPerDay;
}

/** Operator: sets (or with null removes) an organization's daily job cap; returns once every replica uses it. */
export async function setDailyJobCap(
  stores: TenancyStores & JobStores,
  settings: DailyJobCapSettings,
  orgId: string,
  jobsPerDay: number | null,
): Promise<{ org_id: string; jobs_per_day: number; source: 'override' | 'default' }> {
  if (!(await stores.tenancy.organizationExists(orgId))) throw new Error(`organization ${orgId} does not exist`);
  await stores.jobs.saveDailyJobCap(orgId, jobsPerDay);
  await waitUntilReadCachesExpire(settings.readCacheMs);
  return { org_id: orgId, jobs_per_day: await dailyJobCap(stores, settings, orgId), source: jobsPerDay === null ? 'default' : 'override' };
}

export interface DaySlot {
  slotId: string;
}

/** Takes one of today's slots for the job, or throws 429 `contact_job_daily_cap` (Retry-After: until the UTC day rolls). */
export async function claimDaySlot(
  stores: JobStores,
  settings: DailyJobCapSettings,
  caps: DailyJobCapReads,
  orgId: string,
  jobId: string,
  now: number,
): Promise<DaySlot> {
  const cap = await caps.capOf(settings, orgId);
  const { day, secondsLeft } = utcDay(now);
  const expiresAt = new Date(Math.floor(now / DAY_MS) * DAY_MS + DAY_MS);
  const taken = await stores.jobs.daySlotIdsOf(orgId, day);
  for (let n = 0; n < cap; n++) {
    const slotId = `${orgId}:${day}:${n}`;
    if (taken.has(slotId)) continue;
    if (await stores.jobs.insertDaySlot({ _id: slotId, orgId, day, jobId, expiresAt })) return { slotId };
  }
  throw retryLater(
    'contact_job_daily_cap',
    `This organization reached its cap of ${cap} contact-retrieval jobs per UTC day; retry after the day rolls over.`,
    secondsLeft,
    {
      extensions: { limit: cap },
    },
  );
}

/** Gives back the slot of a job that was refused after claiming it. */
export async function returnDaySlot(stores: JobStores, slot: DaySlot): Promise<void> {
  await stores.jobs.deleteDaySlot(slot.slotId);
}

/** Slots of days that are over (store maintenance). */
export async function purgeExpiredDaySlots(stores: JobStores, now: Date): Promise<number> {
  return stores.jobs.deleteExpiredDaySlots(now);
}
