import { Schema, model } from 'mongoose';

/**
 * A stored search (`srch_…`): the parameters a customer searched with and the people it
 * matched in rank order (up to MAX_STORED_SEARCH_PEOPLE), so pages are stable and a batch
 * contact-retrieval job can later work through the same people.
 */
const searchSchema = new Schema(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true, index: true },
    /** Hash of the normalized parameters; a cursor must belong to the same search. */
    fingerprint: { type: String, required: true },
    /** Normalized parameters (no free text is logged; it is stored for paging only). */
    params: { type: Schema.Types.Mixed, required: true },
    /** How many people the search kept (their ids are in `search_people`). */
    size: { type: Number, required: true },
    total: { type: Number, required: true },
    expiresAt: { type: Date, required: true },
  },
  { timestamps: true, versionKey: false },
);
export const Search = model('Search', searchSchema, 'searches');

/**
 * The people of a stored search, space-separated in rank order. Kept apart from `searches`
 * so that looking a search up never parses ten thousand ids (FerretDB reads whole rows).
 */
const searchPeopleSchema = new Schema(
  {
    _id: { type: String, required: true },
    ids: { type: String, default: '' },
    expiresAt: { type: Date, required: true, index: true },
  },
  { versionKey: false },
);
export const SearchPeople = model('SearchPeople', searchPeopleSchema, 'search_people');

/**
 * Quota windows: one append-only chain per (organization, quota, window) — see
 * core/credits/chain.ts. Each entry adds the members new to the window and the count after
 * them; a writer that loses the race for the next entry re-reads and re-checks, so
 * concurrent requests cannot overshoot a threshold.
 */
const quotaEntrySchema = new Schema(
  {
    _id: { type: String, required: true },
    chainId: { type: String, required: true, index: true },
    seq: { type: Number, required: true },
    members: { type: [String], default: [] },
    countAfter: { type: Number, required: true },
    expiresAt: { type: Date, required: true, index: true },
  },
  { versionKey: false },
);
export const QuotaEntry = model('QuotaEntry', quotaEntrySchema, 'search_quota_entries');

/** Which people an organization unlocked (unlock is free the second time). */
const profileUnlockSchema = new Schema(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    personId: { type: String, required: true },
    /** The charge that paid for it; a retried request with the same key is recognized by it. */
    chargeKey: { type: String, required: true },
    receiptId: { type: String, default: null },
  },
  { timestamps: true, versionKey: false },
);
export const ProfileUnlock = model('ProfileUnlock', profileUnlockSchema, 'profile_unlocks');

/**
 * A built search index kept per people version (core/talent/searchIndexSnapshot.ts): its parts,
 * and apart from them (small: listing it never reads the parts) the manifests naming them.
 */
const snapshotSchema = new Schema(
  {
    _id: { type: String, required: true },
    version: { type: Number, required: true },
    part: Number,
    parts: Number,
    bytes: Number,
    data: Buffer,
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
export const SearchIndexSnapshot = model('SearchIndexSnapshot', snapshotSchema, 'search_index_snapshots');
export const SearchIndexSnapshotManifest = model('SearchIndexSnapshotManifest', snapshotSchema.clone(), 'search_index_snapshot_manifests');
