import { appendEntry, headSeq, readEntry, type AppendOutcome, type ChainHeads } from '../credits/chain';
import { isDuplicateKeyError } from '../store/connection';
import { insertManyIgnoringDuplicates, insertOnce } from '../store/inserts';
import { typedCollection } from '../store/typedCollection';
import { PeopleMeta, Person, ProviderContact } from './models';
import { INDEXED_PERSON_FIELDS, type IndexedPerson, type PersonProfileRecord, type PersonRecord, type ProviderContactRecord } from './person';
import { ProfileUnlock, QuotaEntry, Search, SearchIndexSnapshot, SearchIndexSnapshotManifest, SearchPeople } from './searchModels';

/**
 * The talent area's store: the one module that reads and writes its collections (people,
 * provider contacts, the people meta, stored searches, quota windows, unlocks, search index
 * snapshots). It answers
 * with plain records; the rules (ranking, matching, quotas, charging) live with the callers.
 */

const VERSION_ID = 'version';
const seedMetaId = (seed: string) => `seed:${seed}`;

// ---- people -------------------------------------------------------------------------------

/** One person's profile (no internal fields), or null. */
export async function findPersonProfile(personId: string): Promise<PersonProfileRecord | null> {
  return Person.findById(personId).lean<PersonRecord>();
}

/**
 * The source of each person that exists; people absent from the map do not exist.
 * FerretDB: every query scans the collection, so the whole list is asked in one query.
 */
export async function sourcesOfPeople(personIds: readonly string[]): Promise<Map<string, string>> {
  if (!personIds.length) return new Map();
  const docs = await Person.find({ _id: { $in: [...personIds] } }, { source: 1 }).lean<Array<Pick<PersonRecord, '_id' | 'source'>>>();
  return new Map(docs.map((d) => [d._id, d.source]));
}

/** The full name of each person that exists, in one query (people absent from the map do not exist). */
export async function namesOfPeople(personIds: readonly string[]): Promise<Map<string, string>> {
  if (!personIds.length) return new Map();
  const docs = await Person.find({ _id: { $in: [...personIds] } }, { fullName: 1 }).lean<Array<Pick<PersonRecord, '_id' | 'fullName'>>>();
  return new Map(docs.map((d) => [d._id, d.fullName]));
}

/** The first person of `source` in id order (the dev session's example person), or null. */
export async function firstPersonOfSource(source: string): Promise<Pick<PersonRecord, '_id' | 'fullName' | 'profileUrl'> | null> {
  return Person.findOne({ source }, { _id: 1, fullName: 1, profileUrl: 1 }).sort({ _id: 1 }).lean<Pick<PersonRecord, '_id' | 'fullName' | 'profileUrl'>>();
}

/** Up to `limit` ids of people of `source` after `afterId`, in id order (a page of a walk). */
export async function personIdsOfSourceAfter(source: string, afterId: string, limit: number): Promise<string[]> {
  const docs = await Person.find({ source, _id: { $gt: afterId } }, { _id: 1 })
    .sort({ _id: 1 })
    .limit(limit)
    .lean<Array<Pick<PersonRecord, '_id'>>>();
  return docs.map((d) => d._id);
}

/**
 * Every person as the search index takes it, in batches of about `batchSize`, in natural
 * (insertion) order: stable across reloads and replicas.
 * FerretDB: sorting a million documents cannot be pushed down, hence no sort.
 */
export async function* peopleForIndex(batchSize: number): AsyncGenerator<IndexedPerson[]> {
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
}

/** Stores generated people, skipping those already stored; answers how many were new. */
export async function insertPeople(people: PersonRecord[]): Promise<number> {
  return (await insertManyIgnoringDuplicates(typedCollection<PersonRecord>(Person), people)).inserted;
}

// ---- provider contacts --------------------------------------------------------------------

/** Every provider contact record, streamed. FerretDB: a bulk scan is its one cheap read, so callers keep these in memory. */
export function allProviderContacts(): AsyncIterable<ProviderContactRecord> {
  return typedCollection<ProviderContactRecord>(ProviderContact).find({}, { batchSize: 5000 });
}

/** Which of `personIds` have a provider contact record. */
export async function personIdsWithProviderContacts(personIds: readonly string[]): Promise<Set<string>> {
  const docs = await ProviderContact.find({ _id: { $in: [...personIds] } }, { _id: 1 }).lean<Array<Pick<ProviderContactRecord, '_id'>>>();
  return new Set(docs.map((d) => d._id));
}

/** Stores generated contact records, skipping those already stored. */
export async function insertProviderContacts(contacts: ProviderContactRecord[]): Promise<number> {
  return (await insertManyIgnoringDuplicates(typedCollection<ProviderContactRecord>(ProviderContact), contacts)).inserted;
}

// ---- people meta --------------------------------------------------------------------------

/** How far `seed` has been generated (0 when never). */
export async function seededUpTo(seed: string): Promise<number> {
  return (await PeopleMeta.findById(seedMetaId(seed)).lean())?.seeded ?? 0;
}

/** Records that `seed` is generated up to `upTo` (never moves back). */
export async function recordSeeded(seed: string, upTo: number): Promise<void> {
  await PeopleMeta.updateOne({ _id: seedMetaId(seed) }, { $max: { seeded: upTo } }, { upsert: true });
}

/**
 * How many people are seeded (sum over seeds).
 * FerretDB: counting the people would scan them all, so the meta documents keep the count.
 */
export async function peopleCount(): Promise<number> {
  const metas = await PeopleMeta.find({ _id: { $regex: /^seed:/ } }, { seeded: 1 }).lean();
  return metas.reduce((s, m) => s + (m.seeded ?? 0), 0);
}

/** Moves whenever the people collection changes; search indexes reload when it moves. */
export async function peopleVersion(): Promise<number> {
  return (await PeopleMeta.findById(VERSION_ID, { version: 1 }).lean())?.version ?? 0;
}

/** Moves the people version on (after the people changed). */
export async function bumpPeopleVersion(): Promise<void> {
  await PeopleMeta.updateOne({ _id: VERSION_ID }, { $inc: { version: 1 } }, { upsert: true });
}

// ---- stored searches ----------------------------------------------------------------------

/** A stored search as kept in `searches`, its people apart. */
export interface SearchRecord {
  _id: string;
  orgId: string;
  /** Hash of the normalized parameters; a cursor must belong to the same search. */
  fingerprint: string;
  params: unknown;
  /** How many people the search kept (their ids are in `search_people`). */
  size: number;
  total: number;
  expiresAt: Date;
  createdAt?: Date;
}

/**
 * Stores a search and its people (people first: a visible search always has its people; a
 * retry may find them stored).
 * FerretDB: it reads whole rows, so the ids live apart and looking a search up never parses them.
 */
export async function insertSearch(search: Omit<SearchRecord, 'createdAt'>, personIds: string[]): Promise<void> {
  try {
    await SearchPeople.create({ _id: search._id, ids: personIds.join(' '), expiresAt: search.expiresAt });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
  await Search.create(search);
}

/** A stored search and its people in rank order, or null when absent. */
export async function findSearchRecord(searchId: string): Promise<{ search: SearchRecord; personIds: string[] } | null> {
  const [doc, people] = await Promise.all([Search.findById(searchId).lean<SearchRecord>(), SearchPeople.findById(searchId).lean()]);
  if (!doc) return null;
  return { search: doc, personIds: people?.ids ? people.ids.split(' ') : [] };
}

/** Deletes the searches (and their people) expired at `now`; answers how many searches. */
export async function deleteExpiredSearches(now: Date): Promise<number> {
  await SearchPeople.deleteMany({ expiresAt: { $lte: now } });
  return (await Search.deleteMany({ expiresAt: { $lte: now } })).deletedCount ?? 0;
}

// ---- quota windows ------------------------------------------------------------------------

/**
 * An entry of a quota window's chain (core/credits/chain.ts). Search quotas write members and
 * the count; delivery reservations of batch jobs also write what a job holds.
 */
export interface QuotaEntryRecord {
  _id: string;
  chainId: string;
  seq: number;
  members: string[];
  countAfter: number;
  expiresAt: Date;
  job?: string;
  reserved?: number;
  consumed?: number;
  released?: number;
}

/**
 * The head sequence number of a quota window's chain, or -1 when empty, probing from the head
 * `heads` holds, which learn the head found.
 * FerretDB: concurrent updates are lost, so a window is an append-only chain of unique inserts.
 */
export function quotaHeadSeq(chainId: string, heads?: ChainHeads): Promise<number> {
  return headSeq(QuotaEntry, chainId, -1, heads);
}

/** The entries `0..upToSeq` of a quota window's chain (any order). */
export async function quotaEntriesUpTo(chainId: string, upToSeq: number): Promise<QuotaEntryRecord[]> {
  return QuotaEntry.find({ chainId, seq: { $lte: upToSeq } }).lean<QuotaEntryRecord[]>();
}

/** One entry of a quota window's chain, or null. */
export function readQuotaEntry(chainId: string, seq: number): Promise<QuotaEntryRecord | null> {
  return readEntry<QuotaEntryRecord>(QuotaEntry, chainId, seq);
}

/** Appends entry `seq`; exactly one of concurrent writers of the same `seq` gets 'appended' (which `heads` learn). */
export function appendQuotaEntry(
  chainId: string,
  seq: number,
  entry: Omit<QuotaEntryRecord, '_id' | 'chainId' | 'seq'>,
  heads?: ChainHeads,
): Promise<AppendOutcome> {
  return appendEntry(QuotaEntry, chainId, seq, { ...entry }, heads);
}

/** Deletes the quota entries expired at `now`; answers how many. */
export async function deleteExpiredQuotaEntries(now: Date): Promise<number> {
  return (await QuotaEntry.deleteMany({ expiresAt: { $lte: now } })).deletedCount ?? 0;
}

// ---- profile unlocks ----------------------------------------------------------------------

/** That an organization unlocked a person (unlock is free the second time). */
export interface ProfileUnlockRecord {
  orgId: string;
  personId: string;
  /** The charge that paid for it; a retried request with the same key is recognized by it. */
  chargeKey: string;
  receiptId: string | null;
}

function unlockId(orgId: string, personId: string): string {
  return `${orgId}:${personId}`;
}

/** The organization's unlock of the person, or null. */
export async function findProfileUnlock(orgId: string, personId: string): Promise<ProfileUnlockRecord | null> {
  return ProfileUnlock.findById(unlockId(orgId, personId), { orgId: 1, personId: 1, chargeKey: 1, receiptId: 1 }).lean<ProfileUnlockRecord>();
}

/** Records an unlock; a second record of the same unlock is ignored (the first one stands). */
export async function recordProfileUnlock(unlock: ProfileUnlockRecord): Promise<void> {
  try {
    await ProfileUnlock.create({ _id: unlockId(unlock.orgId, unlock.personId), ...unlock });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
}

// ---- search index snapshots ---------------------------------------------------------------

/** A part of a search index snapshot (`data`), or its manifest (`parts`, `bytes`). */
export interface IndexSnapshotRecord {
  _id: string;
  version: number;
  part?: number;
  parts?: number;
  bytes?: number;
  data?: Buffer;
  createdAt: Date;
}

/** The manifest stored under `id`, or null. */
export async function findIndexSnapshotManifest(id: string): Promise<IndexSnapshotRecord | null> {
  return SearchIndexSnapshotManifest.findById(id).lean<IndexSnapshotRecord>();
}

/** Every manifest (ids and part counts only). */
export async function indexSnapshotManifests(): Promise<Array<Pick<IndexSnapshotRecord, '_id' | 'parts'>>> {
  return SearchIndexSnapshotManifest.find({}, { parts: 1 }).lean<Array<Pick<IndexSnapshotRecord, '_id' | 'parts'>>>();
}

export async function indexSnapshotManifestExists(id: string): Promise<boolean> {
  return (await SearchIndexSnapshotManifest.exists({ _id: id })) !== null;
}

/** The bytes of the parts stored under `ids`, by id (absent parts are missing from the map). */
export async function findIndexSnapshotParts(ids: string[]): Promise<Map<string, Buffer>> {
  const docs = await SearchIndexSnapshot.find({ _id: { $in: ids } }).lean<IndexSnapshotRecord[]>();
  const out = new Map<string, Buffer>();
  for (const d of docs) if (d.data) out.set(d._id, Buffer.from(d.data.buffer, d.data.byteOffset, d.data.byteLength));
  return out;
}

/**
 * Stores a part; a part already stored (another replica wrote the same version) stays.
 * FerretDB: a unique insert is the one write it applies atomically, so replicas never conflict.
 */
export async function insertIndexSnapshotPart(part: IndexSnapshotRecord): Promise<void> {
  await insertManyIgnoringDuplicates(typedCollection<IndexSnapshotRecord>(SearchIndexSnapshot), [part]);
}

/** Stores a manifest once; false when one was already stored under its id. */
export function insertIndexSnapshotManifest(manifest: IndexSnapshotRecord): Promise<boolean> {
  return insertOnce(typedCollection<IndexSnapshotRecord>(SearchIndexSnapshotManifest), manifest);
}

export async function deleteIndexSnapshotManifest(id: string): Promise<void> {
  await SearchIndexSnapshotManifest.deleteOne({ _id: id });
}

export async function deleteIndexSnapshotParts(ids: string[]): Promise<void> {
  if (ids.length) await SearchIndexSnapshot.deleteMany({ _id: { $in: ids } });
}
