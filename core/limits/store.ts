import { GroupedInserts } from '../store/groupedInserts';
import { insertOnce } from '../store/inserts';
import { typedCollection } from '../store/typedCollection';
import type { VersionClaim, VersionedDoc, VersionedStore } from '../store/versionedDocument';
import type { LimitSettingsDoc } from './limitSettingsRecord';
import { AdmissionSlot, LimitSettings, LimitSettingsVersions, MinuteCapLog } from './models';

/**
 * The limits area's store: the one module that reads and writes admission slots (windows and
 * in-flight leases), per-minute cap logs and limit settings. Every read is by `_id` or by an
 * equality the store pushes down; the rules (which slot, which cap, which limit) live with the callers.
 */

export interface WindowSlotRecord {
  _id: string;
  /** The window's second. */
  s: number;
}
export interface LeaseSlotRecord {
  _id: string;
  org: string;
  slot: number;
  exp: number;
  token: string;
}
type AdmissionSlotRecord = WindowSlotRecord | LeaseSlotRecord;

export interface CapLogRecord {
  _id: string;
  cap: string;
  i: number;
  at: number;
}

const slots = () => typedCollection<AdmissionSlotRecord>(AdmissionSlot);
const windows = () => typedCollection<WindowSlotRecord>(AdmissionSlot);
const leases = () => typedCollection<LeaseSlotRecord>(AdmissionSlot);
const capLogs = () => typedCollection<CapLogRecord>(MinuteCapLog);

// ---- admission slots ----

/** Unique inserts of slots; the ones asked for together travel to the store as one command. */
export function createSlotInserts(): GroupedInserts<AdmissionSlotRecord> {
  return new GroupedInserts(slots);
}

/** Which of these window slots are taken. */
export async function takenWindowSlotIds(slotIds: string[]): Promise<string[]> {
  return (
    await windows()
      .find({ _id: { $in: slotIds } }, { projection: { _id: 1 } })
      .toArray()
  ).map((d) => d._id);
}

export async function deleteWindowSlots(slotIds: string[]): Promise<void> {
  await windows().deleteMany({ _id: { $in: slotIds } });
}

export async function deleteWindowSlot(slotId: string): Promise<void> {
  await windows().deleteOne({ _id: slotId });
}

/** Window slots older than `beforeSecond`, at most `limit` (deleted then by `_id`: a delete by second holds FerretDB's write lock while it reads every slot). */
export async function staleWindowSlotIds(beforeSecond: number, limit: number): Promise<string[]> {
  return (
    await windows()
      .find({ s: { $lt: beforeSecond } }, { projection: { _id: 1 } })
      .limit(limit)
      .toArray()
  ).map((d) => d._id);
}

/** The lease slots of these ids that are held (a filter on `org` scans the collection on FerretDB 1.x; `_id` is an index lookup). */
export async function leasesByIds(slotIds: readonly string[]): Promise<LeaseSlotRecord[]> {
  return leases()
    .find({ _id: { $in: [...slotIds] } })
    .toArray();
}

/** Deletes leases only where their token still matches: a slot another holder reclaimed stays. */
export async function deleteLeasesHeldBy(slotIds: string[], tokens: string[]): Promise<void> {
  await leases().deleteMany({ _id: { $in: slotIds }, token: { $in: tokens } });
}

export async function deleteLeases(slotIds: string[]): Promise<void> {
  await leases().deleteMany({ _id: { $in: slotIds } });
}

/** Every lease slot held now, whichever organization (the chaos drill's ledger). */
export async function everyHeldLease(): Promise<Array<Pick<LeaseSlotRecord, '_id' | 'token' | 'exp'>>> {
  return leases()
    .find({ token: { $exists: true } }, { projection: { _id: 1, token: 1, exp: 1 } })
    .toArray();
}

// ---- per-minute cap logs ----

/** A cap's latest `limit` entries, newest first. */
export async function latestCapEntries(cap: string, limit: number): Promise<Array<Pick<CapLogRecord, 'i' | 'at'>>> {
  return capLogs()
    .find({ cap }, { projection: { i: 1, at: 1 } })
    .sort({ i: -1 })
    .limit(limit)
    .toArray();
}

/** Inserts entry `i` of a cap; false when another request took that number. */
export function insertCapEntry(entry: CapLogRecord): Promise<boolean> {
  return insertOnce(capLogs(), entry);
}

export async function deleteCapEntriesBefore(cap: string, beforeMs: number): Promise<void> {
  await capLogs().deleteMany({ cap, at: { $lt: beforeMs } });
}

export async function deleteCapEntry(entryId: string): Promise<void> {
  await capLogs().deleteOne({ _id: entryId });
}

/** Deletes the entries of every cap named with this prefix older than `beforeMs`; returns how many. */
export async function deleteCapEntriesWithPrefixBefore(prefix: string, beforeMs: number): Promise<number> {
  return (await capLogs().deleteMany({ cap: { $regex: `^${prefix}` }, at: { $lt: beforeMs } })).deletedCount;
}

// ---- limit settings ----

export function findLimitSettings(orgId: string): Promise<LimitSettingsDoc | null> {
  return typedCollection<LimitSettingsDoc>(LimitSettings).findOne({ _id: orgId });
}

export function limitSettingsOf(orgIds: string[]): Promise<LimitSettingsDoc[]> {
  return typedCollection<LimitSettingsDoc>(LimitSettings)
    .find({ _id: { $in: orgIds } })
    .toArray();
}

/** The versioned compare-and-set store of limit settings (see versionedDocument.ts). */
export function limitSettingsVersions(): VersionedStore {
  return { documents: typedCollection<VersionedDoc>(LimitSettings), claims: typedCollection<VersionClaim>(LimitSettingsVersions) };
}
