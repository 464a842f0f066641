import { Schema, type Connection } from 'mongoose';
import { boundModel } from '../store/boundModel';

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

/** A stored search's people, space-separated in rank order. */
export interface SearchPeopleRecord {
  _id: string;
  ids: string;
  expiresAt: Date;
}

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

/** That an organization unlocked a person (unlock is free the second time). */
export interface ProfileUnlockRecord {
  orgId: string;
  personId: string;
  /** The charge that paid for it; a retried request with the same key is recognized by it. */
  chargeKey: string;
  receiptId: string | null;
}

/** An unlock as stored, under `<org_id>:<person_id>`. */
export interface StoredProfileUnlockRecord extends ProfileUnlockRecord {
  _id: string;
}

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

/**
 * A stored search (`srch_…`): the parameters a customer searched with and the people it
 * matched in rank order (up to MAX_STORED_SEARCH_PEOPLE), so pages are stable and a batch
 * contact-retrieval job can later work through the same people.
 */
const searchSchema = new Schema<SearchRecord>(
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

/**
 * The people of a stored search, space-separated in rank order. Kept apart from `searches`
 * so that looking a search up never parses ten thousand ids (FerretDB reads whole rows).
 */
const searchPeopleSchema = new Schema<SearchPeopleRecord>(
  {
    _id: { type: String, required: true },
    ids: { type: String, default: '' },
    expiresAt: { type: Date, required: true, index: true },
  },
  { versionKey: false },
);

/**
 * Quota windows: one append-only chain per (organization, quota, window) — see
 * core/credits/chain.ts. Each entry adds the members new to the window and the count after
 * them; a writer that loses the race for the next entry re-reads and re-checks, so
 * concurrent requests cannot overshoot a threshold.
 */
const quotaEntrySchema = new Schema<QuotaEntryRecord>(
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

/** Which people an organization unlocked (unlock is free the second time). */
const profileUnlockSchema = new Schema<StoredProfileUnlockRecord>(
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

/**
 * A built search index kept per people version (core/talent/searchIndexSnapshot.ts): its parts,
 * and apart from them (small: listing it never reads the parts) the manifests naming them.
 */
const snapshotSchema = new Schema<IndexSnapshotRecord>(
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

/** The searches' models (stored searches, quota windows, unlocks, index snapshots) on the root's connection. */
export function searchModels(connection: Connection) {
  return {
    searches: boundModel<SearchRecord>(connection, 'Search', searchSchema, 'searches'),
    searchPeople: boundModel<SearchPeopleRecord>(connection, 'SearchPeople', searchPeopleSchema, 'search_people'),
    quotaEntries: boundModel<QuotaEntryRecord>(connection, 'QuotaEntry', quotaEntrySchema, 'search_quota_entries'),
    profileUnlocks: boundModel<StoredProfileUnlockRecord>(connection, 'ProfileUnlock', profileUnlockSchema, 'profile_unlocks'),
    snapshots: boundModel<IndexSnapshotRecord>(connection, 'SearchIndexSnapshot', snapshotSchema, 'search_index_snapshots'),
    snapshotManifests: boundModel<IndexSnapshotRecord>(connection, 'SearchIndexSnapshotManifest', snapshotSchema.clone(), 'search_index_snapshot_manifests'),
  };
}
