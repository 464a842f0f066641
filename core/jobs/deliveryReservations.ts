import type { ChainHeads } from '../credits/chain';
import { retryLater } from '../problems';
import { quotaLimit, quotaWindow, recordDelivered, type QuotaSettings, type QuotaWindows } from '../talent/quotas';
import type { QuotaEntryRecord, TalentStores } from '../talent/store';
import { planDeliveryReservation } from './jobRules';

/**
 * A contact-retrieval job's share of the daily delivery quota (unique people delivered per
 * organization per UTC day), reserved for the whole job when it is accepted, so two jobs can
 * never both spend the same remaining quota.
 *
 * It lives in the same append-only chain as the quota (core/talent/quotas.ts) so that the
 * check and the reservation are one unique insert: an entry that reserves adds nothing to the
 * window's members but raises its count; an entry that records the job's deliveries adds the
 * people and consumes as much of the job's reservation (the count does not move for them);
 * the release at the end gives the unused rest back. Unlocks and searches see reservations as
 * part of the count. A job's deliveries count in the window of the day it was accepted.
 */

const HOUR_MS = 3600_000;

type ReservationEntry = Pick<QuotaEntryRecord, 'seq' | 'countAfter' | 'job' | 'reserved' | 'consumed' | 'released'> & { members?: string[] };

interface DeliveryWindow {
  chainId: string;
  seq: number;
  count: number;
  members: Set<string>;
  end: number;
  /** What a job still holds of its reservation. */
  outstanding: (jobId: string) => number;
}

/**
 * Runs `fn` in the app's turn for the organization's deliveries (the quota windows' heads carry
 * the app's turns), so its reservations and records do not race each other; a caller without
 * the heads leaves its races to the store.
 */
function inDeliveriesTurn<T>(heads: ChainHeads | undefined, orgId: string, fn: () => Promise<T>): Promise<T> {
  return heads ? heads.turns.inTurn(`deliveries:${orgId}`, fn) : fn();
}

function chainOf(orgId: string, at: number): { chainId: string; end: number } {
  const w = quotaWindow('deliveries', at);
  // The chain of core/talent/quotas.ts for this window.
  return { chainId: `${orgId}:deliveries:${w.key}`, end: w.end };
}

/** `heads`: the quota windows' chain heads, when the caller holds them (the worker's). */
async function readWindow(stores: TalentStores, orgId: string, at: number, heads?: ChainHeads): Promise<DeliveryWindow> {
  const { chainId, end } = chainOf(orgId, at);
  const seq = await stores.talent.quotaHeadSeq(chainId, heads);
  const entries = seq >= 0 ? await stores.talent.quotaEntriesUpTo(chainId, seq) : [];
  const members = new Set<string>();
  const held = new Map<string, number>();
  let count = 0;
  for (const e of entries) {
    for (const m of e.members ?? []) members.add(m);
    if (e.seq === seq) count = e.countAfter;
    if (e.job) held.set(e.job, (held.get(e.job) ?? 0) + (e.reserved ?? 0) - (e.consumed ?? 0) - (e.released ?? 0));
  }
  return { chainId, seq, count, members, end, outstanding: (jobId) => Math.max(0, held.get(jobId) ?? 0) };
}

async function append(stores: TalentStores, w: DeliveryWindow, doc: Omit<ReservationEntry, 'seq'>, heads?: ChainHeads): Promise<boolean> {
  const entry = { ...doc, members: doc.members ?? [], expiresAt: new Date(w.end + HOUR_MS) };
  return (await stores.talent.appendQuotaEntry(w.chainId, w.seq + 1, entry, heads)) === 'appended';
}

const MAX_RACES = 200;

function contended(): never {
  throw retryLater('rate_limited', 'The delivery quota is under heavy contention; retry shortly.', 1);
}

export interface Reservation {
  /** People the reservation covers (not yet counted today). */
  covered: string[];
  /** People who would pass the quota: they fail with `delivery_quota_exceeded`. */
  over: string[];
}

/**
 * Reserves the delivery quota for a job's `people` in the window of `at`: people counted
 * today already are free, the others are covered while the quota lasts. Throws 429
 * `delivery_quota_exceeded` (Retry-After 1, nothing reserved) when someone needs quota and
 * none is left. `heads`: the app's quota chain heads (QuotaWindows), when it has them.
 */
export async function reserveDeliveries(
  stores: TalentStores,
  settings: QuotaSettings,
  orgId: string,
  jobId: string,
  people: readonly string[],
  at: number,
  heads?: ChainHeads,
): Promise<Reservation> {
  const limit = quotaLimit(settings, 'deliveries');
  return inDeliveriesTurn(heads, orgId, async () => {
    for (let race = 0; race < MAX_RACES; race++) {
      const w = await readWindow(stores, orgId, at, heads);
      const plan = planDeliveryReservation(people, w.members, w.count, limit);
      if (plan.covered.length === 0 && plan.over.length > 0) {
        throw retryLater('delivery_quota_exceeded', `The organization reached its quota of ${limit} unique people delivered per day.`, 1, {
          extensions: { limit },
        });
      }
      if (plan.covered.length === 0) return plan;
      if (await append(stores, w, { countAfter: w.count + plan.covered.length, job: jobId, reserved: plan.covered.length }, heads)) return plan;
    }
    return contended();
  });
}

/**
 * Records people a job delivered: they join the window of the job's acceptance, paid from its
 * reservation. Never refuses (the delivery happened); safe to repeat. `windows`: the worker's
 * quota windows, for the count outside the reservation when the chain stays contended.
 */
export async function recordJobDeliveries(
  stores: TalentStores,
  windows: QuotaWindows,
  orgId: string,
  jobId: string,
  at: number,
  personIds: readonly string[],
): Promise<void> {
  if (!personIds.length) return;
  await inDeliveriesTurn(windows.heads, orgId, async () => {
    for (let race = 0; race < MAX_RACES; race++) {
      const w = await readWindow(stores, orgId, at, windows.heads);
      const fresh = [...new Set(personIds)].filter((p) => !w.members.has(p));
      if (!fresh.length) return;
      const consumed = Math.min(fresh.length, w.outstanding(jobId));
      if (await append(stores, w, { members: fresh, countAfter: w.count + fresh.length - consumed, job: jobId, consumed }, windows.heads)) return;
    }
    // Counted anyway, outside the reservation: never lose a delivery from the count.
    await recordDelivered(windows, orgId, [...personIds], at);
  });
}

/**
 * Gives back what a finished (or refused) job did not use of its reservation; safe to repeat.
 * `heads`: the app's quota chain heads, for their turn, when the caller holds them.
 */
export async function releaseDeliveries(stores: TalentStores, orgId: string, jobId: string, at: number, heads?: ChainHeads): Promise<number> {
  return inDeliveriesTurn(heads, orgId, async () => {
    for (let race = 0; race < MAX_RACES; race++) {
      const w = await readWindow(stores, orgId, at);
      const left = w.outstanding(jobId);
      if (left === 0) return 0;
      if (await append(stores, w, { countAfter: Math.max(0, w.count - left), job: jobId, released: left })) return left;
    }
    return contended();
  });
}
