import { Schema, model } from 'mongoose';

/**
 * Per-minute caps (SPEC 8.3 rule 2): exact in any trailing minute. The log of a cap of N holds
 * the times of the last N admitted requests in a ring (`r`, length N, `i` the oldest slot).
 * A request is admitted exactly when the oldest of the last N admissions is at least 60 s old,
 * i.e. when fewer than N were admitted in the trailing minute. The slot is claimed with a
 * version-checked update, so concurrent replicas never both take it.
 */
export const MINUTE_MS = 60_000;

export interface CapRing {
  n: number;
  i: number;
  r: number[];
}

export interface CapDecision {
  admit: boolean;
  /** Slot the admission would overwrite (the oldest of the last N). */
  slot: number;
  /** Admissions in the trailing minute before this request. */
  used: number;
  retryAfterSeconds: number;
}

export function emptyRing(n: number): CapRing {
  return { n, i: 0, r: new Array<number>(n).fill(0) };
}

export function usedInTrailingMinute(ring: CapRing, nowMs: number): number {
  return ring.r.filter((t) => t > nowMs - MINUTE_MS).length;
}

export function capDecision(ring: CapRing, nowMs: number): CapDecision {
  const oldest = ring.r[ring.i] ?? 0;
  const used = usedInTrailingMinute(ring, nowMs);
  const admit = oldest <= nowMs - MINUTE_MS;
  return { admit, slot: ring.i, used, retryAfterSeconds: admit ? 0 : Math.max(1, Math.ceil((oldest + MINUTE_MS - nowMs) / 1000)) };
}

/** The ring after admitting at `nowMs` (pure; the store applies the same change atomically). */
export function admitInRing(ring: CapRing, nowMs: number): CapRing {
  const r = [...ring.r];
  r[ring.i] = nowMs;
  return { n: ring.n, i: (ring.i + 1) % ring.n, r };
}

/** A ring for a new cap size that keeps the most recent admissions, oldest slot first. */
export function resizeRing(ring: CapRing | undefined, n: number): CapRing {
  if (!ring) return emptyRing(n);
  const ordered = [...ring.r.slice(ring.i), ...ring.r.slice(0, ring.i)].filter((t) => t > 0);
  const kept = ordered.slice(Math.max(0, ordered.length - n));
  return { n, i: 0, r: [...new Array<number>(n - kept.length).fill(0), ...kept] };
}

interface CapLogDoc extends CapRing {
  _id: string;
  v: number;
}

const capLogSchema = new Schema({ _id: { type: String, required: true } }, { strict: false, versionKey: false });
export const MinuteCapLog = model('MinuteCapLog', capLogSchema, 'minute_cap_logs');
const logs = () => MinuteCapLog.collection as unknown as import('mongodb').Collection<CapLogDoc>;

export const capLogId = (orgId: string, operation: string, scopeType: string, scopeId: string) => `cap:${orgId}:${operation}:${scopeType}:${scopeId}`;

export interface CapTaken {
  docId: string;
  slot: number;
  stamp: number;
  previous: number;
}

export type CapAdmission =
  | { admitted: true; taken: CapTaken; limit: number; remaining: number; resetSeconds: number }
  | { admitted: false; limit: number; retryAfterSeconds: number };

/** Admits one request under a per-minute cap of `limit`, or refuses it without consuming. */
export async function admitUnderCap(docId: string, limit: number, now: () => number = Date.now): Promise<CapAdmission> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const doc = await logs().findOne({ _id: docId });
    if (!doc || doc.n !== limit || !Array.isArray(doc.r)) {
      const ring = resizeRing(doc && Array.isArray(doc.r) ? doc : undefined, limit);
      try {
        if (!doc) await logs().insertOne({ _id: docId, v: 0, ...ring });
        else await logs().updateOne({ _id: docId, v: doc.v }, { $set: { ...ring }, $inc: { v: 1 } });
      } catch (err) {
        if ((err as { code?: number }).code !== 11000) throw err;
      }
      continue;
    }
    const t = now();
    const decision = capDecision(doc, t);
    if (!decision.admit) return { admitted: false, limit, retryAfterSeconds: decision.retryAfterSeconds };
    const res = await logs().updateOne(
      { _id: docId, v: doc.v },
      { $set: { [`r.${decision.slot}`]: t, i: (decision.slot + 1) % limit }, $inc: { v: 1 } },
    );
    if (res.modifiedCount === 1) {
      const after = admitInRing(doc, t);
      const nextOldest = after.r[after.i];
      return {
        admitted: true,
        taken: { docId, slot: decision.slot, stamp: t, previous: doc.r[decision.slot] ?? 0 },
        limit,
        remaining: limit - usedInTrailingMinute(after, t),
        resetSeconds: nextOldest > t - MINUTE_MS ? Math.max(1, Math.ceil((nextOldest + MINUTE_MS - t) / 1000)) : 0,
      };
    }
    // Another request took the slot first: read the ring again.
  }
  return { admitted: false, limit, retryAfterSeconds: 1 };
}

/** Gives back a cap slot taken by a request that a later check refused. */
export async function returnCapSlot(taken: CapTaken): Promise<void> {
  await logs().updateOne({ _id: taken.docId, [`r.${taken.slot}`]: taken.stamp }, { $set: { [`r.${taken.slot}`]: taken.previous }, $inc: { v: 1 } });
}
