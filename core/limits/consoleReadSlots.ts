import { retryLater, type Problem } from '../problems';
import type { StoreAdmission } from './requestAdmission';

/**
 * How many console reads of one organization run at once, on every API replica together, beyond
 * the organization's request rate and in-flight limit: a list page may read a few thousand
 * numbers of a log and an export reads all of it, so the in-flight limit alone (25) would let
 * one organization keep the store busy enough to slow every other organization's requests. Each
 * running read holds a slot of its kind, taken by a unique insert in the store like an in-flight
 * lease (inFlightLeases.ts), so no two replicas admit more than the limit together; the slot is
 * given back when the response ends, however it ends.
 */
export interface ReadSlotKind {
  /** The slots' scope, apart from the organization's request leases. */
  scope: string;
  atOnce: number;
  /** How long a slot stays taken when its replica never gives it back (a crash mid-response). */
  ttlSeconds: number;
  /** A refused read is asked to come back after this long. */
  retryAfterSeconds: number;
  refusal: (atOnce: number) => string;
}

/** Exports (CSV downloads): at most 2 at once per organization. */
export const EXPORT_SLOTS: ReadSlotKind = {
  scope: 'export',
  atOnce: 2,
  ttlSeconds: 600,
  retryAfterSeconds: 5,
  refusal: (n) => `Your organization already has ${n} downloads running; start this one when one of them has finished.`,
};

/** Console list pages: at most 4 being read at once per organization (a page takes milliseconds to a second). */
export const LIST_PAGE_SLOTS: ReadSlotKind = {
  scope: 'console-list',
  atOnce: 4,
  ttlSeconds: 60,
  retryAfterSeconds: 1,
  refusal: (n) => `Your organization already has ${n} console lists being read; try again in a moment.`,
};

export const EXPORTS_AT_ONCE = EXPORT_SLOTS.atOnce;

export interface ReadSlot {
  /** Gives the slot back; later calls do nothing. */
  release: () => void;
}

const slotScope = (kind: ReadSlotKind, orgId: string) => `${kind.scope}:${orgId}`;

/** The refusal of a read when the organization's `kind.atOnce` slots are taken: 429 `rate_limited`. */
export function readSlotsTaken(kind: ReadSlotKind): Problem {
  return retryLater('rate_limited', kind.refusal(kind.atOnce), kind.retryAfterSeconds, { extensions: { limit: `${kind.scope}_at_once` } });
}

/** True when this app's own reads hold every slot of `kind` of the organization: a read would be refused without asking the store. */
export function readSlotsFullHere(admission: StoreAdmission, kind: ReadSlotKind, orgId: string): boolean {
  return admission.everyPlaceHeldHere(slotScope(kind, orgId), kind.atOnce);
}

/** One of the organization's slots of `kind`, or 429 `rate_limited` when `kind.atOnce` are taken. */
export async function takeReadSlot(admission: StoreAdmission, kind: ReadSlotKind, orgId: string): Promise<ReadSlot> {
  const got = await admission.acquireLease(slotScope(kind, orgId), kind.atOnce, kind.ttlSeconds * 1000);
  if (!got.admitted) throw readSlotsTaken(kind);
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      admission.releaseLease(got.lease);
    },
  };
}

/** One of the organization's export slots (EXPORT_SLOTS). */
export function takeExportSlot(admission: StoreAdmission, orgId: string): Promise<ReadSlot> {
  return takeReadSlot(admission, EXPORT_SLOTS, orgId);
}
