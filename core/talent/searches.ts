import { newId } from '../ids';
import { notFound } from '../problems';
import type { TalentStores } from './store';

/** How many matched people a stored search keeps (the batch job limit is 10,000). */
export const MAX_STORED_SEARCH_PEOPLE = 10_000;
/** Stored searches (and so their cursors and batch jobs) live this long. */
export const SEARCH_RETENTION_MS = 7 * 24 * 3600 * 1000;

export interface StoredSearch {
  searchId: string;
  orgId: string;
  fingerprint: string;
  params: unknown;
  personIds: string[];
  total: number;
  createdAt: Date;
  expiresAt: Date;
}

/** Stores a search made at `now` (ms), kept SEARCH_RETENTION_MS. */
export async function storeSearch(
  stores: TalentStores,
  input: {
    orgId: string;
    fingerprint: string;
    params: unknown;
    personIds: string[];
    total: number;
    searchId?: string;
  },
  at: number,
): Promise<StoredSearch> {
  const searchId = input.searchId ?? newId('srch');
  const now = new Date(at);
  const expiresAt = new Date(now.getTime() + SEARCH_RETENTION_MS);
  const personIds = input.personIds.slice(0, MAX_STORED_SEARCH_PEOPLE);
  await stores.talent.insertSearch(
    { _id: searchId, orgId: input.orgId, fingerprint: input.fingerprint, params: input.params, size: personIds.length, total: input.total, expiresAt },
    personIds,
  );
  return { searchId, orgId: input.orgId, fingerprint: input.fingerprint, params: input.params, personIds, total: input.total, createdAt: now, expiresAt };
}

/** The organization's stored search, or null when absent, foreign or past retention. */
export async function findSearch(stores: TalentStores, orgId: string, searchId: string, now: number): Promise<StoredSearch | null> {
  const found = await stores.talent.findSearchRecord(searchId);
  if (!found) return null;
  const doc = found.search;
  if (doc.orgId !== orgId || doc.expiresAt.getTime() <= now) return null;
  return {
    searchId: doc._id,
    orgId: doc.orgId,
    fingerprint: doc.fingerprint,
    params: doc.params,
    personIds: found.personIds,
    total: doc.total,
    createdAt: doc.createdAt ?? new Date(0),
    expiresAt: doc.expiresAt,
  };
}

/**
 * The people a stored search of this organization matched, in rank order, up to `limit`.
 * Throws `notFound('search')` for an absent, foreign or expired search.
 */
export async function peopleOfSearch(stores: TalentStores, orgId: string, searchId: string, limit: number, now: number): Promise<string[]> {
  const s = await findSearch(stores, orgId, searchId, now);
  if (!s) throw notFound('search');
  return s.personIds.slice(0, Math.max(0, limit));
}

export async function purgeExpiredSearches(stores: TalentStores, now: Date): Promise<number> {
  return stores.talent.deleteExpiredSearches(now);
}
