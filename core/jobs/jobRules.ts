import type { FailureReason, FinalJobStatus, JobCounts, PersonOutcome, StopReason } from './jobTypes';
import type { Tally } from './tally';
import type { KeyPrincipal } from '../keys/apiKeys';

/** Contact-retrieval job rules (SPEC 3.3, 8.1; DECISIONS.md "Contact-retrieval jobs"), as plain functions. */

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

/** A job not finished within this time becomes `expired`. */
export const JOB_DEADLINE_MS = 24 * HOUR_MS;
/** A result is readable this long after the job finished (409 `result_set_expired` afterwards). */
export const RESULT_RETENTION_MS = 7 * DAY_MS;
/** Once purged a result is 410 `result_gone`. */
export const RESULT_PURGE_AFTER_MS = 30 * DAY_MS;
/** A person this organization retrieved within this window is `reused` from its cache, free. */
export const REUSE_WINDOW_MS = 30 * DAY_MS;
/** Running contact-retrieval jobs per organization (SPEC 8.1). */
export const RUNNING_JOB_SLOTS = 2;
/** Retry-After of `contact_job_concurrency_cap` (SPEC 7.3). */
export const CAP_RETRY_AFTER_SECONDS = 30;
/** Credits per delivered contact record. */
export const CREDITS_PER_RECORD = 1;
export const MAX_PERSON_IDS = 100;
export const MAX_BATCH_PEOPLE = 10_000;

export function contactRetrievalWorkflowId(jobId: string): string {
  return `contact-retrieval:${jobId}`;
}

export function resultRetentionWorkflowId(jobId: string): string {
  return `job-result-retention:${jobId}`;
}

/**
 * The charge key of one chunk of a job (people at positions from `from`): the chunk's
 * delivered records are paid in one ledger entry, once, whatever retries happen.
 */
export function chunkChargeKey(jobId: string, from: number): string {
  return `job:${jobId}:chunk:${from}`;
}

/** Who a job belongs to: the key that made it, with its workspace, application and family (list filters, limits, audit). */
export function jobOwnerOf(principal: KeyPrincipal): { orgId: string; workspaceId: string; applicationId: string; familyId: string; keyId: string } {
  const { orgId, workspaceId, applicationId, familyId, keyId } = principal;
  return { orgId, workspaceId, applicationId, familyId, keyId };
}

export function emptyCounts(requested: number): JobCounts {
  return { requested, delivered: 0, not_found: 0, failed: 0, reused: 0, cancelled: 0, pending: requested };
}

/** Counts from a tally of outcomes; whoever is not tallied is still pending, so the seven always add up. */
export function countsFromTally(requested: number, tally: Tally): JobCounts {
  const c = {
    requested,
    delivered: tally.delivered ?? 0,
    not_found: tally.not_found ?? 0,
    failed: tally.failed ?? 0,
    reused: tally.reused ?? 0,
    cancelled: tally.cancelled ?? 0,
    pending: 0,
  };
  c.pending = requested - c.delivered - c.not_found - c.failed - c.reused - c.cancelled;
  if (c.pending < 0) throw new Error(`job counts exceed the requested people (${requested})`);
  return c;
}

export function countsAddUp(c: JobCounts): boolean {
  return c.delivered + c.not_found + c.failed + c.reused + c.cancelled + c.pending === c.requested;
}

/** What a person the job never reached becomes when it stops early. */
export function leftoverOutcome(stop: StopReason | null): { outcome: 'cancelled' | 'failed'; reason: FailureReason | null } {
  switch (stop) {
    case null:
      // The job ended without a stop but the person was never settled (an activity gave up).
      return { outcome: 'failed', reason: 'processing_error' };
    case 'cancelled':
      return { outcome: 'cancelled', reason: null };
    case 'expired':
      return { outcome: 'failed', reason: 'job_expired' };
    case 'insufficient_credits':
      return { outcome: 'failed', reason: 'insufficient_credits' };
  }
}

/**
 * The final status: `cancelled` / `expired` when the job stopped for that reason before
 * reaching everyone; otherwise `completed` when nobody failed, `failed` when nobody could be
 * processed, `partial` in between.
 */
export function finalJobStatus(c: JobCounts, stop: StopReason | null, leftoversAtStop: number): FinalJobStatus {
  if (stop === 'cancelled' && leftoversAtStop > 0) return 'cancelled';
  if (stop === 'expired' && leftoversAtStop > 0) return 'expired';
  const processed = c.delivered + c.not_found + c.reused;
  if (c.failed === 0 && c.cancelled === 0 && c.pending === 0) return 'completed';
  if (processed === 0) return 'failed';
  return 'partial';
}

/**
 * Whether a finished job carries a result (SPEC 2.5 `result_expires_at`): at least one person
 * got an answer (delivered, reused or not_found). A job where everyone failed or was cancelled
 * before being reached has nothing to read.
 */
export function carriesResult(c: JobCounts): boolean {
  return c.delivered + c.not_found + c.reused > 0;
}

export function resultTimes(completedAt: Date, counts: JobCounts): { resultExpiresAt: Date | null; resultPurgeAt: Date } {
  return {
    resultExpiresAt: carriesResult(counts) ? new Date(completedAt.getTime() + RESULT_RETENTION_MS) : null,
    resultPurgeAt: new Date(completedAt.getTime() + RESULT_PURGE_AFTER_MS),
  };
}

/** Half-open ranges [from, to) of people positions, one per activity call. */
export function chunkRanges(total: number, size: number): Array<{ from: number; to: number }> {
  if (size < 1) throw new Error('chunk size must be positive');
  const out: Array<{ from: number; to: number }> = [];
  for (let from = 0; from < total; from += size) out.push({ from, to: Math.min(total, from + size) });
  return out;
}

/** Person ids in first-seen order without repeats: a person is retrieved once per job. */
export function uniquePersonIds(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

/** What a chunk found for one person before paying: the plan a retry replays. */
export interface PlanEntry {
  seq: number;
  personId: string;
  answer: 'reused' | 'found' | 'not_found' | 'failed';
  reason?: FailureReason | null;
  emails?: string[];
  phones?: string[];
}

export interface SettledPerson {
  seq: number;
  personId: string;
  outcome: Exclude<PersonOutcome, 'pending'>;
  reason: FailureReason | null;
  emails: string[];
  phones: string[];
  receiptId: string | null;
}

/** The number of records a plan would charge: every person found with something asked for. */
export function chargeableUnits(plan: readonly PlanEntry[]): number {
  return plan.filter((e) => e.answer === 'found').length;
}

/** How a found person whose every field another job claimed first is answered (contactFieldClaims.ts). */
export type HeldAnswer = 'reused' | 'unpaid' | 'pending';

/**
 * Settles a chunk's plan once `paidUnits` of its records were paid under `receiptId`: the
 * first found people (in position order) are delivered, found people beyond what was paid
 * fail with `insufficient_credits` (free, contacts dropped), the rest keep their answer.
 * A found person in `held` was paid for by another job: `reused` (free, contacts delivered)
 * when that job delivered, `insufficient_credits` when it could not pay, and left out (not
 * settled yet) while it is still paying; held people take no paid unit.
 */
export function settlePlan(
  plan: readonly PlanEntry[],
  paidUnits: number,
  receiptId: string | null,
  held: ReadonlyMap<number, HeldAnswer> = new Map(),
): SettledPerson[] {
  let paid = 0;
  return [...plan]
    .sort((a, b) => a.seq - b.seq)
    .filter((e) => !(e.answer === 'found' && held.get(e.seq) === 'pending'))
    .map((e): SettledPerson => {
      const base = {
        seq: e.seq,
        personId: e.personId,
        emails: [] as string[],
        phones: [] as string[],
        receiptId: null as string | null,
        reason: null as FailureReason | null,
      };
      switch (e.answer) {
        case 'reused':
          return { ...base, outcome: 'reused', emails: e.emails ?? [], phones: e.phones ?? [] };
        case 'not_found':
          return { ...base, outcome: 'not_found' };
        case 'failed':
          return { ...base, outcome: 'failed', reason: e.reason ?? 'provider_unavailable' };
        case 'found': {
          const other = held.get(e.seq);
          if (other === 'reused') return { ...base, outcome: 'reused', emails: e.emails ?? [], phones: e.phones ?? [] };
          if (other === undefined && paid < paidUnits) {
            paid++;
            return { ...base, outcome: 'delivered', emails: e.emails ?? [], phones: e.phones ?? [], receiptId };
          }
          return { ...base, outcome: 'failed', reason: 'insufficient_credits' };
        }
      }
    });
}

/**
 * How a person held by other jobs is answered from the states of their claims: reused once
 * every holder delivered, unpaid as soon as one could not pay, pending otherwise.
 */
export function heldAnswer(states: ReadonlyArray<'paid' | 'unpaid' | 'pending'>): HeldAnswer {
  if (states.includes('unpaid')) return 'unpaid';
  if (states.includes('pending')) return 'pending';
  return 'reused';
}

/**
 * Which of the asked-for people this organization may see, as unlock decides (404 there):
 * a person who does not exist and a person of a source the organization has not enabled are
 * the same to the caller, so neither reveals the other.
 */
export function unknownPeople(personIds: readonly string[], sourceOf: ReadonlyMap<string, string>, usableSources: ReadonlySet<string>): string[] {
  return personIds.filter((p) => {
    const source = sourceOf.get(p);
    return source === undefined || !usableSources.has(source);
  });
}

/**
 * The delivery-quota reservation of a job at acceptance. People already counted in today's
 * window are free; of the others (in job order) the first `limit - count` are covered by the
 * reservation and the rest are over the quota (they fail with `delivery_quota_exceeded`,
 * free). `count` includes the live reservations of other jobs.
 */
export function planDeliveryReservation(
  people: readonly string[],
  counted: ReadonlySet<string>,
  count: number,
  limit: number,
): { covered: string[]; over: string[] } {
  const fresh = uniquePersonIds(people).filter((p) => !counted.has(p));
  const room = Math.max(0, limit - count);
  return { covered: fresh.slice(0, room), over: fresh.slice(room) };
}

/** The UTC day of `nowMs` (`YYYY-MM-DD`) and the seconds until the next one starts (at least 1). */
export function utcDay(nowMs: number): { day: string; secondsLeft: number } {
  const start = Math.floor(nowMs / DAY_MS) * DAY_MS;
  return { day: new Date(start).toISOString().slice(0, 10), secondsLeft: Math.max(1, Math.ceil((start + DAY_MS - nowMs) / 1000)) };
}
