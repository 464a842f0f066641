import type { Logger } from '../observability/logger';
import type { OperationName } from './limitTable';
import type { LimitsStore } from './store';
import { errorMessage } from '../observability/errorMessage';

/**
 * Per-minute caps (SPEC 8.3 rule 2): exact in any trailing minute. Admitted requests under a
 * cap get consecutive sequence numbers, each a uniquely-inserted log entry with its time; the
 * request that would be number i is admitted exactly when entry i−N (the N-th most recent
 * admission) is at least 60 s old or absent, i.e. when fewer than N were admitted in the
 * trailing minute. Entries never change once written, and only one request can insert number
 * i, so replicas never over-admit (no atomic update is needed: FerretDB 1.x has none).
 */
export const MINUTE_MS = 60_000;

export interface CapEntry {
  i: number;
  at: number;
}

export interface CapDecision {
  admit: boolean;
  /** Sequence number the admission would take. */
  next: number;
  /** Admissions in the trailing minute before this request. */
  used: number;
  retryAfterSeconds: number;
}

/** Decides on the most recent entries (any order, at least the last N). */
export function capDecision(recent: CapEntry[], n: number, nowMs: number): CapDecision {
  const next = recent.length ? Math.max(...recent.map((e) => e.i)) + 1 : 0;
  const nthMostRecent = recent.find((e) => e.i === next - n);
  const used = recent.filter((e) => e.i > next - 1 - n && e.at > nowMs - MINUTE_MS).length;
  const admit = !nthMostRecent || nthMostRecent.at <= nowMs - MINUTE_MS;
  return { admit, next, used, retryAfterSeconds: admit ? 0 : Math.max(1, Math.ceil((nthMostRecent!.at + MINUTE_MS - nowMs) / 1000)) };
}

export const capLogId = (orgId: string, operation: OperationName, scopeType: string, scopeId: string) => `${orgId}:${operation}:${scopeType}:${scopeId}`;

export interface CapTaken {
  entryId: string;
}

export type CapAdmission =
  { admitted: true; taken: CapTaken; limit: number; remaining: number; resetSeconds: number } | { admitted: false; limit: number; retryAfterSeconds: number };

/** What a cap's admission counts in, reads time from and logs through: its app's limits store, clock and logger. */
export interface CapContext {
  limits: LimitsStore;
  now: () => number;
  logger: Logger;
}

/** Admits one request under a per-minute cap of `limit`, or refuses it without writing. */
export async function admitUnderCap(cap: string, limit: number, { limits, now, logger }: CapContext): Promise<CapAdmission> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const recent = await limits.latestCapEntries(cap, limit);
    const t = now();
    const d = capDecision(recent, limit, t);
    if (!d.admit) return { admitted: false, limit, retryAfterSeconds: d.retryAfterSeconds };
    const entryId = `c:${cap}:${d.next}`;
    if (!(await limits.insertCapEntry({ _id: entryId, cap, i: d.next, at: t }))) continue; // another request took this number
    if (d.next % 100 === 0) {
      limits.deleteCapEntriesBefore(cap, t - 2 * MINUTE_MS).catch((e) => logger.warn({ err: { message: errorMessage(e) } }, 'could not purge a cap log'));
    }
    const oldestCounted = [...recent.filter((e) => e.i > d.next - limit && e.at > t - MINUTE_MS).map((e) => e.at), t];
    return {
      admitted: true,
      taken: { entryId },
      limit,
      remaining: limit - d.used - 1,
      resetSeconds: d.used + 1 >= limit ? Math.max(1, Math.ceil((Math.min(...oldestCounted) + MINUTE_MS - t) / 1000)) : 0,
    };
  }
  return { admitted: false, limit, retryAfterSeconds: 1 };
}

/** Gives back a cap entry taken by a request that a later check refused. */
export async function returnCapSlot(limits: LimitsStore, taken: CapTaken): Promise<void> {
  await limits.deleteCapEntry(taken.entryId);
}
