import { appendEntry, headSeq, readEntry, type AppendOutcome, type ChainHeads } from '../credits/chain';
import { isDuplicateKeyError } from '../store/connection';
import { insertManyIgnoringDuplicates, insertOnce } from '../store/inserts';
import { typedCollection } from '../store/typedCollection';
import type { Connection } from 'mongoose';
import { peopleModels } from './models';
import { INDEXED_PERSON_FIELDS, type IndexedPerson, type PersonProfileRecord, type PersonRecord, type ProviderContactRecord } from './person';
import { searchModels, type IndexSnapshotRecord, type ProfileUnlockRecord, type QuotaEntryRecord, type SearchRecord } from './searchModels';

export type { IndexSnapshotRecord, ProfileUnlockRecord, QuotaEntryRecord, SearchRecord } from './searchModels';

/**
 * The talent area's store: the one module that reads and writes its collections (people,
 * provider contacts, the people meta, stored searches, quota windows, unlocks, search index
 * snapshots). It answers
 * with plain records; the rules (ranking, matching, quotas, charging) live with the callers.
 */

const VERSION_ID = 'version';
const seedMetaId = (seed: string) => `seed:${seed}`;

function unlockId(orgId: string, personId: string): string {
  return `${orgId}:${personId}`;
}

/** The talent area's store on the root's connection (core/deps.ts `createStores`). */
export function createTalentStore(connection: Connection) {
  const { people: Person, providerContacts: ProviderContact, peopleMeta: PeopleMeta } = peopleModels(connection);
  const {
    searches: Search,
    searchPeople: SearchPeople,
    quotaEntries: QuotaEntry,
    profileUnlocks: ProfileUnlock,
    snapshots: SearchIndexSnapshot,
    snapshotManifests: SearchIndexSnapshotManifest,
  } = searchModels(connection);
  return {
    // ---- people -------------------------------------------------------------------------------

    /** One person's profile (no internal fields), or null. */
    async findPersonProfile(personId: string): Promise<PersonProfileRecord | null> {
      return Person.findById(personId).lean<PersonRecord>();
    },

    /**
     * The source of each person that exists; people absent from the map do not exist.
     * FerretDB: every query scans the collection, so the whole list is asked in one query.
     */
    async sourcesOfPeople(personIds: readonly string[]): Promise<Map<string, string>> {
      if (!personIds.length) return new Map();
      const docs = await Person.find({ _id: { $in: [...personIds] } }, { source: 1 }).lean<Array<Pick<PersonRecord, '_id' | 'source'>>>();
      return new Map(docs.map((d) => [d._id, d.source]));
    },

    /** The full name of each person that exists, in one query (people absent from the map do not exist). */
    async namesOfPeople(personIds: readonly string[]): Promise<Map<string, string>> {
      if (!personIds.length) return new Map();
      const docs = await Person.find({ _id: { $in: [...personIds] } }, { fullName: 1 }).lean<Array<Pick<PersonRecord, '_id' | 'fullName'>>>();
      return new Map(docs.map((d) => [d._id, d.fullName]));
    },

    /** The first person of `source` in id order (the dev session's example person), or null. */
    async firstPersonOfSource(source: string): Promise<Pick<PersonRecord, '_id' | 'fullName' | 'profileUrl'> | null> {
      return Person.findOne({ source }, { _id: 1, fullName: 1, profileUrl: 1 }).sort({ _id: 1 }).lean<Pick<PersonRecord, '_id' | 'fullName' | 'profileUrl'>>();
    },

    /** Up to `limit` ids of people of `source` after `afterId`, in id order (a page of a walk). */
    async personIdsOfSourceAfter(source: string, afterId: string, limit: number): Promise<string[]> {
      const docs = await Person.find({ source, _id: { $gt: afterId } }, { _id: 1 })
        .sort({ _id: 1 })
        .limit(limit)
        .lean<Array<Pick<PersonRecord, '_id'>>>();
      return docs.map((d) => d._id);
    },

    /**
     * Every person as the search index takes it, in batches of about `batchSize`, in natural
     * (insertion) order: stable across reloads and replicas.
     * FerretDB: sorting a million documents cannot be pushed down, hence no sort.
     */
    async *peopleForIndex(batchSize: number): AsyncGenerator<IndexedPerson[]> {
      const projection = Object.fromEntries(INDEXED_PERSON_FIELDS.map((f) => [f, 1]));
      const cursor = typedCollection<PersonRecord>(Person).find<IndexedPerson>({}, { projection, batchSize });
      let more = await cursor.hasNext();
      while (more) {
        const batch = cursor.readBufferedDocuments();
        // The next batch is asked for before this one is handed over, so the store reads and
        // encodes it while the caller indexes (two cores at work instead of one at a time).
        const next = cursor.hasNext();
        yield batch;
        more = await next;
      }
    },

    /** Up to `limit` people of `source` in the store's order, after skipping `skip` (tests pick people of the dataset). */
    async peopleOfSource(source: string, { limit, skip = 0 }: { limit: number; skip?: number }): Promise<PersonRecord[]> {
      return Person.find({ source }).skip(skip).limit(limit).lean<PersonRecord[]>();
    },

    /** The people with these ids that exist, in any order. */
    async peopleByIds(personIds: readonly string[]): Promise<PersonRecord[]> {
      return Person.find({ _id: { $in: [...personIds] } }).lean<PersonRecord[]>();
    },

    /** The person generated as `ordinal` of `seed`, or null. */
    async personOfSeed(seed: string, ordinal: number): Promise<PersonRecord | null> {
      return Person.findOne({ seed, ordinal }).lean<PersonRecord>();
    },

    /** Stores generated people, skipping those already stored; answers how many were new. */
    async insertPeople(people: PersonRecord[]): Promise<number> {
      return (await insertManyIgnoringDuplicates(typedCollection<PersonRecord>(Person), people)).inserted;
    },

    // ---- provider contacts --------------------------------------------------------------------

    /** Every provider contact record, streamed. FerretDB: a bulk scan is its one cheap read, so callers keep these in memory. */
    allProviderContacts(): AsyncIterable<ProviderContactRecord> {
      return typedCollection<ProviderContactRecord>(ProviderContact).find({}, { batchSize: 5000 });
    },

    /** A provider contact record with an email (and with a phone when `phone`), or null (tests pick a findable person). */
    async providerContactWithEmail({ phone = false }: { phone?: boolean } = {}): Promise<ProviderContactRecord | null> {
      const filled = { $exists: true, $ne: [] };
      return ProviderContact.findOne(phone ? { emails: filled, phones: filled } : { emails: filled }).lean<ProviderContactRecord>();
    },

    /** Which of `personIds` have a provider contact record. */
    async personIdsWithProviderContacts(personIds: readonly string[]): Promise<Set<string>> {
      const docs = await ProviderContact.find({ _id: { $in: [...personIds] } }, { _id: 1 }).lean<Array<Pick<ProviderContactRecord, '_id'>>>();
      return new Set(docs.map((d) => d._id));
    },

    /** Stores generated contact records, skipping those already stored. */
    async insertProviderContacts(contacts: ProviderContactRecord[]): Promise<number> {
      return (await insertManyIgnoringDuplicates(typedCollection<ProviderContactRecord>(ProviderContact), contacts)).inserted;
    },

    // ---- people meta --------------------------------------------------------------------------

    /** How far `seed` has been generated (0 when never). */
    async seededUpTo(seed: string): Promise<number> {
      return (await PeopleMeta.findById(seedMetaId(seed)).lean())?.seeded ?? 0;
    },

    /** Records that `seed` is generated up to `upTo` (never moves back). */
    async recordSeeded(seed: string, upTo: number): Promise<void> {
      await PeopleMeta.updateOne({ _id: seedMetaId(seed) }, { $max: { seeded: upTo } }, { upsert: true });
    },

    /**
     * How many people are seeded (sum over seeds).
     * FerretDB: counting the people would scan them all, so the meta documents keep the count.
     */
    async peopleCount(): Promise<number> {
      const metas = await PeopleMeta.find({ _id: { $regex: /^seed:/ } }, { seeded: 1 }).lean();
      return metas.reduce((s, m) => s + (m.seeded ?? 0), 0);
    },

    /** Moves whenever the people collection changes; search indexes reload when it moves. */
    async peopleVersion(): Promise<number> {
      return (await PeopleMeta.findById(VERSION_ID, { version: 1 }).lean())?.version ?? 0;
    },

    /** Moves the people version on (after the people changed). */
    async bumpPeopleVersion(): Promise<void> {
      await PeopleMeta.updateOne({ _id: VERSION_ID }, { $inc: { version: 1 } }, { upsert: true });
    },

    // ---- stored searches ----------------------------------------------------------------------

    /**
     * Stores a search and its people (people first: a visible search always has its people; a
     * retry may find them stored).
     * FerretDB: it reads whole rows, so the ids live apart and looking a search up never parses them.
     */
    async insertSearch(search: Omit<SearchRecord, 'createdAt'>, personIds: string[]): Promise<void> {
      try {
        await SearchPeople.create({ _id: search._id, ids: personIds.join(' '), expiresAt: search.expiresAt });
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
      await Search.create(search);
    },

    /** A stored search and its people in rank order, or null when absent. */
    async findSearchRecord(searchId: string): Promise<{ search: SearchRecord; personIds: string[] } | null> {
      const [doc, people] = await Promise.all([Search.findById(searchId).lean<SearchRecord>(), SearchPeople.findById(searchId).lean()]);
      if (!doc) return null;
      return { search: doc, personIds: people?.ids ? people.ids.split(' ') : [] };
    },

    /** How many searches of the organization are stored. */
    async searchCountOfOrg(orgId: string): Promise<number> {
      return Search.countDocuments({ orgId });
    },

    /** Whether the search's record and its people's record are stored (each is purged on its own). */
    async storedSearchParts(searchId: string): Promise<{ search: boolean; people: boolean }> {
      const [search, people] = await Promise.all([Search.exists({ _id: searchId }), SearchPeople.exists({ _id: searchId })]);
      return { search: search !== null, people: people !== null };
    },

    /** Deletes the searches (and their people) expired at `now`; answers how many searches. */
    async deleteExpiredSearches(now: Date): Promise<number> {
      await SearchPeople.deleteMany({ expiresAt: { $lte: now } });
      return (await Search.deleteMany({ expiresAt: { $lte: now } })).deletedCount ?? 0;
    },

    // ---- quota windows ------------------------------------------------------------------------

    /**
     * The head sequence number of a quota window's chain, or -1 when empty, probing from the head
     * `heads` holds, which learn the head found.
     * FerretDB: concurrent updates are lost, so a window is an append-only chain of unique inserts.
     */
    quotaHeadSeq(chainId: string, heads?: ChainHeads): Promise<number> {
      return headSeq(QuotaEntry, chainId, -1, heads);
    },

    /** The entries `0..upToSeq` of a quota window's chain (any order). */
    async quotaEntriesUpTo(chainId: string, upToSeq: number): Promise<QuotaEntryRecord[]> {
      return QuotaEntry.find({ chainId, seq: { $lte: upToSeq } }).lean<QuotaEntryRecord[]>();
    },

    /** One entry of a quota window's chain, or null. */
    readQuotaEntry(chainId: string, seq: number): Promise<QuotaEntryRecord | null> {
      return readEntry<QuotaEntryRecord>(QuotaEntry, chainId, seq);
    },

    /** Appends entry `seq`; exactly one of concurrent writers of the same `seq` gets 'appended' (which `heads` learn). */
    appendQuotaEntry(chainId: string, seq: number, entry: Omit<QuotaEntryRecord, '_id' | 'chainId' | 'seq'>, heads?: ChainHeads): Promise<AppendOutcome> {
      return appendEntry(QuotaEntry, chainId, seq, { ...entry }, heads);
    },

    /** Deletes the quota entries expired at `now`; answers how many. */
    async deleteExpiredQuotaEntries(now: Date): Promise<number> {
      return (await QuotaEntry.deleteMany({ expiresAt: { $lte: now } })).deletedCount ?? 0;
    },

    // ---- profile unlocks ----------------------------------------------------------------------

    /** The organization's unlock of the person, or null. */
    async findProfileUnlock(orgId: string, personId: string): Promise<ProfileUnlockRecord | null> {
      return ProfileUnlock.findById(unlockId(orgId, personId), { orgId: 1, personId: 1, chargeKey: 1, receiptId: 1 }).lean<ProfileUnlockRecord>();
    },

    /** Records an unlock; a second record of the same unlock is ignored (the first one stands). */
    async recordProfileUnlock(unlock: ProfileUnlockRecord): Promise<void> {
      try {
        await ProfileUnlock.create({ _id: unlockId(unlock.orgId, unlock.personId), ...unlock });
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
    },

    // ---- search index snapshots ---------------------------------------------------------------

    /** The manifest stored under `id`, or null. */
    async findIndexSnapshotManifest(id: string): Promise<IndexSnapshotRecord | null> {
      return SearchIndexSnapshotManifest.findById(id).lean<IndexSnapshotRecord>();
    },

    /** Every manifest (ids and part counts only). */
    async indexSnapshotManifests(): Promise<Array<Pick<IndexSnapshotRecord, '_id' | 'parts'>>> {
      return SearchIndexSnapshotManifest.find({}, { parts: 1 }).lean<Array<Pick<IndexSnapshotRecord, '_id' | 'parts'>>>();
    },

    async indexSnapshotManifestExists(id: string): Promise<boolean> {
      return (await SearchIndexSnapshotManifest.exists({ _id: id })) !== null;
    },

    /** The bytes of the parts stored under `ids`, by id (absent parts are missing from the map). */
    async findIndexSnapshotParts(ids: string[]): Promise<Map<string, Buffer>> {
      const docs = await SearchIndexSnapshot.find({ _id: { $in: ids } }).lean<IndexSnapshotRecord[]>();
      const out = new Map<string, Buffer>();
      for (const d of docs) if (d.data) out.set(d._id, Buffer.from(d.data.buffer, d.data.byteOffset, d.data.byteLength));
      return out;
    },

    /**
     * Stores a part; a part already stored (another replica wrote the same version) stays.
     * FerretDB: a unique insert is the one write it applies atomically, so replicas never conflict.
     */
    async insertIndexSnapshotPart(part: IndexSnapshotRecord): Promise<void> {
      await insertManyIgnoringDuplicates(typedCollection<IndexSnapshotRecord>(SearchIndexSnapshot), [part]);
    },

    /** Stores a manifest once; false when one was already stored under its id. */
    insertIndexSnapshotManifest(manifest: IndexSnapshotRecord): Promise<boolean> {
      return insertOnce(typedCollection<IndexSnapshotRecord>(SearchIndexSnapshotManifest), manifest);
    },

    async deleteIndexSnapshotManifest(id: string): Promise<void> {
      await SearchIndexSnapshotManifest.deleteOne({ _id: id });
    },

    async deleteIndexSnapshotParts(ids: string[]): Promise<void> {
      if (ids.length) await SearchIndexSnapshot.deleteMany({ _id: { $in: ids } });
    },
  };
}

export type TalentStore = ReturnType<typeof createTalentStore>;

/** What a function that reads or writes the talent area's records takes first. */
export interface TalentStores {
  talent: TalentStore;
}
