import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { isDuplicateKeyError } from '../store/duplicateKey';
import { GroupedInserts } from '../store/groupedInserts';
import { insertOnce } from '../store/inserts';
import { typedCollection } from '../store/typedCollection';
import type { VersionClaim, VersionedDoc, VersionedStore } from '../store/versionedDocument';
import type { LimitSettingsDoc } from './limitSettingsRecord';
import { limitsModels, type CapLogRecord, type LimitSettingsMarkRecord } from './models';

export type { CapLogRecord } from './models';

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
type SlotRecord = WindowSlotRecord | LeaseSlotRecord;

/** The one document of `limit_settings_marks`. */
const LIMIT_SETTINGS_MARK = 'limit_settings';

/** The limits area's store on the root's connection (core/deps.ts `createStores`). */
export function createLimitsStore(connection: Connection) {
  const models = limitsModels(connection);
  const slots = typedCollection<SlotRecord>(models.admissionSlots);
  const windows = typedCollection<WindowSlotRecord>(models.admissionSlots);
  const leases = typedCollection<LeaseSlotRecord>(models.admissionSlots);
  const capLogs = typedCollection<CapLogRecord>(models.minuteCapLogs);
  const settings = typedCollection<LimitSettingsDoc>(models.limitSettings);
  const marks = typedCollection<LimitSettingsMarkRecord>(models.limitSettingsMarks);
  const versions: VersionedStore = {
    documents: typedCollection<VersionedDoc>(models.limitSettings),
    claims: typedCollection<VersionClaim>(models.limitSettingsVersions),
  };
  return {
    // ---- admission slots ----

    /** Unique inserts of slots; the ones asked for together (or within `spacingMs`, see GroupedInserts) travel to the store as one command. */
    createSlotInserts(spacingMs = 0): GroupedInserts<SlotRecord> {
      return new GroupedInserts(() => slots, spacingMs);
    },

    /** Which of these window slots are taken. */
    async takenWindowSlotIds(slotIds: string[]): Promise<string[]> {
      return (await windows.find({ _id: { $in: slotIds } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
    },

    async deleteWindowSlots(slotIds: string[]): Promise<void> {
      await windows.deleteMany({ _id: { $in: slotIds } });
    },

    async deleteWindowSlot(slotId: string): Promise<void> {
      await windows.deleteOne({ _id: slotId });
    },

    /** Window slots older than `beforeSecond`, at most `limit` (deleted then by `_id`: a delete by second holds FerretDB's write lock while it reads every slot). */
    async staleWindowSlotIds(beforeSecond: number, limit: number): Promise<string[]> {
      return (
        await windows
          .find({ s: { $lt: beforeSecond } }, { projection: { _id: 1 } })
          .limit(limit)
          .toArray()
      ).map((d) => d._id);
    },

    /** The lease slots of these ids that are held (a filter on `org` scans the collection on FerretDB 1.x; `_id` is an index lookup). */
    async leasesByIds(slotIds: readonly string[]): Promise<LeaseSlotRecord[]> {
      return leases.find({ _id: { $in: [...slotIds] } }).toArray();
    },

    /** Deletes leases only where their token still matches: a slot another holder reclaimed stays. */
    async deleteLeasesHeldBy(slotIds: string[], tokens: string[]): Promise<void> {
      await leases.deleteMany({ _id: { $in: slotIds }, token: { $in: tokens } });
    },

    async deleteLeases(slotIds: string[]): Promise<void> {
      await leases.deleteMany({ _id: { $in: slotIds } });
    },

    /** Every lease slot held now, whichever organization (the chaos drill's ledger). */
    async everyHeldLease(): Promise<Array<Pick<LeaseSlotRecord, '_id' | 'token' | 'exp'>>> {
      return leases.find({ token: { $exists: true } }, { projection: { _id: 1, token: 1, exp: 1 } }).toArray();
    },

    /** Window and lease slots whose `_id` starts with `prefix`: what a test reads of one scope's slots. */
    async slotIdsWithPrefix(prefix: string): Promise<string[]> {
      return (await slots.find({ _id: { $regex: `^${prefix}` } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
    },

    // ---- per-minute cap logs ----

    /** A cap's latest `limit` entries, newest first. */
    async latestCapEntries(cap: string, limit: number): Promise<Array<Pick<CapLogRecord, 'i' | 'at'>>> {
      return capLogs
        .find({ cap }, { projection: { i: 1, at: 1 } })
        .sort({ i: -1 })
        .limit(limit)
        .toArray();
    },

    /** Inserts entry `i` of a cap; false when another request took that number. */
    insertCapEntry(entry: CapLogRecord): Promise<boolean> {
      return insertOnce(capLogs, entry);
    },

    async deleteCapEntriesBefore(cap: string, beforeMs: number): Promise<void> {
      await capLogs.deleteMany({ cap, at: { $lt: beforeMs } });
    },

    async deleteCapEntry(entryId: string): Promise<void> {
      await capLogs.deleteOne({ _id: entryId });
    },

    /** Deletes the entries of every cap named with this prefix older than `beforeMs`; returns how many. */
    async deleteCapEntriesWithPrefixBefore(prefix: string, beforeMs: number): Promise<number> {
      return (await capLogs.deleteMany({ cap: { $regex: `^${prefix}` }, at: { $lt: beforeMs } })).deletedCount;
    },

    /** The entries of caps named with this prefix: what a test reads of one address's or scope's caps. */
    capEntriesWithPrefix(prefix: string): Promise<CapLogRecord[]> {
      return capLogs.find({ cap: { $regex: `^${prefix}` } }).toArray();
    },

    // ---- limit settings ----

    findLimitSettings(orgId: string): Promise<LimitSettingsDoc | null> {
      return settings.findOne({ _id: orgId });
    },

    limitSettingsOf(orgIds: string[]): Promise<LimitSettingsDoc[]> {
      return settings.find({ _id: { $in: orgIds } }).toArray();
    },

    /** Every organization with a stored settings document (a scan of the collection: few organizations have one). */
    async organizationsWithLimitSettings(): Promise<string[]> {
      return (await settings.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
    },

    /** The token of the limit settings' change mark, null before the first change. */
    async limitSettingsMark(): Promise<string | null> {
      return (await marks.findOne({ _id: LIMIT_SETTINGS_MARK }))?.token ?? null;
    },

    /** Writes a new token to the change mark: whoever read another token reloads the directory. */
    async markLimitSettingsChanged(): Promise<void> {
      try {
        await marks.updateOne({ _id: LIMIT_SETTINGS_MARK }, { $set: { token: randomUUID() } }, { upsert: true });
      } catch (err) {
        // Two first marks at once: the other's token, written after this writer's change, marks it too.
        if (!isDuplicateKeyError(err)) throw err;
      }
    },

    /** The versioned compare-and-set store of limit settings (see versionedDocument.ts). */
    limitSettingsVersions(): VersionedStore {
      return versions;
    },
  };
}

export type LimitsStore = ReturnType<typeof createLimitsStore>;

/** What a function that reads or writes limits takes of the root's stores. */
export interface LimitsStores {
  readonly limits: LimitsStore;
}
