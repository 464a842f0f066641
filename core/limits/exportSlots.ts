import { retryLater } from '../problems';
import type { StoreAdmission } from './requestAdmission';

/**
 * Exports (the console's CSV downloads) an organization runs at once, on every API replica
 * together: an export reads the whole of a log or a ledger, so the organization's in-flight
 * limit alone would let it hold 25 of them. Each running export holds one export slot, taken by
 * a unique insert in the store like an in-flight lease (inFlightLeases.ts), so two replicas never
 * admit a third; its slot is given back when the download ends, however it ends.
 */
export const EXPORTS_AT_ONCE = 2;
/** How long a slot stays taken when its replica never gives it back (a crash mid-download). */
export const EXPORT_SLOT_TTL_SECONDS = 600;
/** A refused export is asked to come back after this long: an export of a large log takes seconds. */
export const EXPORT_RETRY_AFTER_SECONDS = 5;

/** The lease scope of an organization's export slots, apart from its request leases. */
export const exportScopeKey = (orgId: string) => `export:${orgId}`;

export interface ExportSlot {
  /** Gives the slot back; later calls do nothing. */
  release: () => void;
}

/** One of the organization's export slots, or 429 `rate_limited` when EXPORTS_AT_ONCE are running. */
export async function takeExportSlot(admission: StoreAdmission, orgId: string): Promise<ExportSlot> {
  const got = await admission.acquireLease(exportScopeKey(orgId), EXPORTS_AT_ONCE, EXPORT_SLOT_TTL_SECONDS * 1000);
  if (!got.admitted) {
    throw retryLater(
      'rate_limited',
      `Your organization already has ${EXPORTS_AT_ONCE} downloads running; start this one when one of them has finished.`,
      EXPORT_RETRY_AFTER_SECONDS,
      { extensions: { limit: 'exports_at_once' } },
    );
  }
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      admission.releaseLease(got.lease);
    },
  };
}
