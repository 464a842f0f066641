import { Schema, model } from 'mongoose';
import { logger } from '../observability/logger';
import { expiredLeases, inFlightRetryAfterSeconds, leaseRoomCondition, LeaseReleaser, newLeaseToken } from './inFlightLeases';
import {
  countInWindow, secondsUntilNextWindow, staleWindowFields, windowAdmitCondition, windowAdmitUpdate, windowField, windowSecond,
} from './strictWindow';

/**
 * Admission against the store (SPEC 8.1): the organization's request rate and in-flight limit
 * in one conditional update of one document (`req:<org>`), and each operation's own rate in
 * `op:<org>:<operation>`. Nothing in process memory is authoritative: two API replicas share
 * these documents. Documents are addressed by `_id` only, which every store serves fast.
 *
 * The key, key-family and application windows of SPEC 8.1 item 1 have the same limit as the
 * organization's, and their requests are a subset of the organization's, so the organization
 * counter bounds them exactly; they are reported, not counted separately.
 */
interface CounterDoc {
  _id: string;
  w?: Record<string, number>;
  l?: string[];
}

const counterSchema = new Schema({ _id: { type: String, required: true } }, { strict: false, versionKey: false });
export const AdmissionCounter = model('AdmissionCounter', counterSchema, 'admission_counters');

const counters = () => AdmissionCounter.collection as unknown as import('mongodb').Collection<CounterDoc>;

export const requestCounterId = (orgId: string) => `req:${orgId}`;
export const operationCounterId = (orgId: string, operation: string) => `op:${orgId}:${operation}`;

const isDuplicateKey = (err: unknown) => (err as { code?: number })?.code === 11000;

export interface WindowTaken {
  docId: string;
  second: number;
}

export type RequestAdmission =
  | { admitted: true; lease: { docId: string; token: string }; taken: WindowTaken; limit: number; count: number; inFlight: number }
  | { admitted: false; reason: 'request_rate' | 'in_flight'; retryAfterSeconds: number; limit: number; count: number };

function dropStaleFields(docId: string, doc: CounterDoc, second: number): void {
  const stale = staleWindowFields(doc.w, second);
  if (stale.length === 0) return;
  counters()
    .updateOne({ _id: docId }, { $unset: Object.fromEntries(stale.map((f) => [f, ''])) })
    .catch((err) => logger.warn({ err: { message: (err as Error).message } }, 'could not drop stale window fields'));
}

/**
 * Admits one request of an organization, or refuses it without consuming anything. On
 * refusal the document is read to tell the request rate from the in-flight limit; expired
 * leases (their process died) are reclaimed there and the request is tried again.
 */
export async function admitRequest(input: {
  orgId: string;
  requestsPerSecond: number;
  maxConcurrency: number;
  leaseTtlMs: number;
  now?: () => number;
}): Promise<RequestAdmission> {
  const clock = input.now ?? Date.now;
  const docId = requestCounterId(input.orgId);
  const limit = input.requestsPerSecond;
  let refusal: RequestAdmission | undefined;
  for (let attempt = 0; attempt < 4; attempt++) {
    const now = clock();
    const second = windowSecond(now);
    const token = newLeaseToken(now, input.leaseTtlMs);
    try {
      const update = windowAdmitUpdate(second);
      const doc = await counters().findOneAndUpdate(
        { _id: docId, ...windowAdmitCondition(second, limit), ...leaseRoomCondition(input.maxConcurrency) },
        { ...update, $push: { l: token } },
        { upsert: true, returnDocument: 'after' },
      );
      if (!doc) throw new Error('admission update returned no document');
      dropStaleFields(docId, doc, second);
      return {
        admitted: true,
        lease: { docId, token },
        taken: { docId, second },
        limit,
        count: countInWindow(doc.w, second),
        inFlight: doc.l?.length ?? 1,
      };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const doc = await counters().findOne({ _id: docId });
    if (!doc) continue; // two first requests raced to create it
    if (windowSecond(clock()) !== second) continue; // a new window opened meanwhile
    const count = countInWindow(doc.w, second);
    if (count >= limit) {
      return { admitted: false, reason: 'request_rate', retryAfterSeconds: secondsUntilNextWindow(clock()), limit, count };
    }
    const held = doc.l ?? [];
    const expired = expiredLeases(held, clock());
    if (expired.length) {
      await counters().updateOne({ _id: docId }, { $pullAll: { l: expired } });
      continue;
    }
    if (held.length >= input.maxConcurrency) {
      refusal = {
        admitted: false,
        reason: 'in_flight',
        retryAfterSeconds: inFlightRetryAfterSeconds(held, clock(), input.leaseTtlMs),
        limit,
        count,
      };
      return refusal;
    }
    // A lease was released or a new second began between the update and the read: try again.
  }
  return refusal ?? { admitted: false, reason: 'in_flight', retryAfterSeconds: 1, limit, count: 0 };
}

export type WindowAdmission =
  | { admitted: true; taken: WindowTaken; limit: number; count: number }
  | { admitted: false; retryAfterSeconds: number; limit: number; count: number };

/** One more request in a strict one-second window of its own (an operation's rate). */
export async function admitWindow(docId: string, limit: number, now: () => number = Date.now): Promise<WindowAdmission> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const t = now();
    const second = windowSecond(t);
    try {
      const doc = await counters().findOneAndUpdate({ _id: docId, ...windowAdmitCondition(second, limit) }, windowAdmitUpdate(second), {
        upsert: true,
        returnDocument: 'after',
      });
      if (!doc) throw new Error('window update returned no document');
      dropStaleFields(docId, doc, second);
      return { admitted: true, taken: { docId, second }, limit, count: countInWindow(doc.w, second) };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const doc = await counters().findOne({ _id: docId });
    if (!doc) continue;
    if (windowSecond(now()) !== second) continue;
    const count = countInWindow(doc.w, second);
    if (count >= limit) return { admitted: false, retryAfterSeconds: secondsUntilNextWindow(now()), limit, count };
  }
  return { admitted: false, retryAfterSeconds: 1, limit, count: limit };
}

/** Gives back a window slot taken by a request that a later check refused (refusals consume nothing). */
export async function returnWindowSlot(taken: WindowTaken): Promise<void> {
  const field = windowField(taken.second);
  await counters().updateOne({ _id: taken.docId, [field]: { $gt: 0 } }, { $inc: { [field]: -1 } });
}

export const leaseReleaser = new LeaseReleaser(
  async (docId, tokens) => {
    await counters().updateOne({ _id: docId }, { $pullAll: { l: tokens } });
  },
  (err) => logger.warn({ err: { message: (err as Error).message } }, 'lease release failed; the lease will expire'),
);

/** Number of leases an organization holds now, expired ones included (diagnostics, tests). */
export async function heldLeases(orgId: string): Promise<string[]> {
  const doc = await counters().findOne({ _id: requestCounterId(orgId) });
  return doc?.l ?? [];
}
