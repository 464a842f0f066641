import { createHash } from 'node:crypto';
import type { Config } from '../config';
import { charge, findCharge, type LedgerHeads } from '../credits/credits';
import type { CreditStores } from '../credits/store';
import type { TalentStores } from './store';
import { PRICES } from '../credits/prices';
import { assertCanFundSmallestAnswer, type Payer } from '../credits/smallestAnswer';
import { canonicalJson, claimChargeKey, type RequestClaim } from '../idempotency/idempotency';
import { validationFailed } from '../problems';
import { isDuplicateKeyError } from '../store/connection';
import type { Turns } from '../inTurn';
import { startSearch, type SearchFilters, type SearchParams } from './rankCandidates';
import { keyedId } from './keyedIds';
import type { PeopleIndexes } from './peopleIndexes';
import { admitToQuota, assertQuotaHasRoom, queryMember, type QuotaWindows } from './quotas';
import { cursorExpired, decodeCursor, encodeCursor, invalidCursor } from './searchCursor';
import { personPreview, type PersonPreview } from './searchIndex';
import type { SearchIndex } from './searchIndexColumns';
import { runScan } from './searchScheduling';
import { findSearch, MAX_STORED_SEARCH_PEOPLE, storeSearch, type StoredSearch } from './searches';
import { fold } from './searchText';
import { sourcesForOrganization, type EnabledSourceReads } from './sources';
import type { PurposeKeys } from '../crypto/purposeKeys';

export const SEARCH_OPERATION = 'candidates.search';

export interface SearchRequest extends Payer {
  /** The request's claim on its Idempotency-Key: the page is charged, and the search named, under it. */
  claim: RequestClaim;
  query?: string;
  filters?: SearchFilters;
  sources?: string[];
  pageSize: number;
  cursor?: string;
}

export interface SearchPage {
  search_id: string;
  data: PersonPreview[];
  next_cursor: string | null;
  total_estimate: number;
  credits_charged: number;
  receipt_id: string | null;
}

/**
 * The id of the search a request starts: derived from the request's claim (so a retry after a
 * crash names, and reuses, the same search) and its parameters, under the server's secret (so
 * nobody can compute another request's search id). A new request under a forgotten key has a
 * new claim, hence a new search: never the old search's people.
 */
function searchIdFor(keys: PurposeKeys, claim: RequestClaim, fingerprint: string): string {
  return keyedId(keys, 'srch', 'search-id', `${claim.orgId}\n${claim.workspaceId}\n${claim.key}\n${claim.nonce}\n${fingerprint}`);
}

function normalizeFilters(f: SearchFilters = {}): SearchFilters {
  const list = (v?: string[]) => (v?.length ? [...new Set(v.map((x) => fold(x)).filter(Boolean))].sort() : undefined);
  const out: SearchFilters = {
    titles: list(f.titles),
    skills: list(f.skills),
    locations: list(f.locations),
    current_company: list(f.current_company),
    seniority: f.seniority?.length ? [...new Set(f.seniority)].sort() : undefined,
    min_years_experience: f.min_years_experience,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as SearchFilters;
}

async function resolveSources(settings: SearchSettings, reads: SearchReads, orgId: string, requested?: string[]): Promise<string[]> {
  const usable = (await sourcesForOrganization(settings, reads.enabledSources, orgId)).map((s) => s.id);
  if (!requested?.length) return usable;
  const refused = requested.filter((s) => !usable.includes(s));
  if (refused.length) {
    throw validationFailed(refused.map((s) => ({ field: 'sources', message: `source ${s} does not exist or is not enabled for this organization` })));
  }
  return [...new Set(requested)].sort();
}

async function paramsOf(settings: SearchSettings, reads: SearchReads, req: SearchRequest): Promise<SearchParams> {
  return { query: (req.query ?? '').trim(), filters: normalizeFilters(req.filters), sources: await resolveSources(settings, reads, req.orgId, req.sources) };
}

function fingerprintOf(params: SearchParams): string {
  return createHash('sha256').update(canonicalJson(params)).digest('hex');
}

/** Throws the first failure in the order given (a stable precedence among concurrent checks). */
function firstFailure(results: PromiseSettledResult<unknown>[]): void {
  for (const r of results) if (r.status === 'rejected') throw r.reason;
}

/** What a search reads of the config: the secrets key (ids, cursors), search and quota settings, READ_CACHE_MS. */
export type SearchSettings = Pick<Config, 'secretsKey' | 'search' | 'searchQuotas' | 'readCacheMs'>;

/** What a search reads through the app's own instances (core/deps.ts). */
export interface SearchReads {
  readonly people: PeopleIndexes;
  readonly enabledSources: EnabledSourceReads;
  readonly quotaWindows: QuotaWindows;
  readonly ledgerHeads: LedgerHeads;
  /** The app's turns: an organization's scans run one at a time (searchScheduling.ts). */
  readonly turns: Turns;
  /** The app's purpose keys: a search id is keyed by them. */
  readonly purposeKeys: PurposeKeys;
  readonly stores: CreditStores & TalentStores;
  readonly now: () => number;
}

export async function searchCandidates(settings: SearchSettings, reads: SearchReads, req: SearchRequest): Promise<SearchPage> {
  return req.cursor !== undefined ? nextPage(settings, reads, req, req.cursor) : firstPage(settings, reads, req);
}

/**
 * A new search. The cheap refusals come first, so a request that is refused never scans and
 * nothing of it is stored: the query counts against the distinct-query cap (found or not, paid
 * or not), a full preview quota and funds short of one page refuse it. Then the scan, bounded
 * by SEARCH_SCAN_BUDGET and sliced (searchScheduling.ts); then the page's people count against the preview quota and the page
 * is charged; only then is the search stored (a batch job can only ever use a search that
 * was answered).
 */
async function firstPage(settings: SearchSettings, reads: SearchReads, req: SearchRequest): Promise<SearchPage> {
  const params = await paramsOf(settings, reads, req);
  if (!params.query && Object.keys(params.filters).length === 0) {
    throw validationFailed([{ field: 'query', message: 'send a query, at least one filter, or a cursor' }]);
  }
  const fingerprint = fingerprintOf(params);
  const now = reads.now();
  firstFailure(
    await Promise.allSettled([
      admitToQuota(settings, reads.quotaWindows, 'queries', req.orgId, [queryMember(fingerprint)], now),
      // The request's own page may be what filled the quota (a retry after a crash): not a refusal then.
      assertQuotaHasRoom(settings, reads.quotaWindows, 'previews', req.orgId, now).catch(async (err: unknown) => {
        if (!(await findCharge(reads.stores, pageChargeKey(req)))) throw err;
      }),
      assertCanFundSmallestAnswer(reads, 'search', { orgId: req.orgId, familyId: req.familyId, agent: req.agent }, pageChargeKey(req)),
    ]),
  );
  const idx = await reads.people.search.get();
  const outcome = await runScan(reads.turns, req.orgId, startSearch(idx, params, MAX_STORED_SEARCH_PEOPLE), settings.search.scanBudget);
  const personIds = outcome.ordinals.map((o) => idx.personIds[o]);
  const pageIds = personIds.slice(0, req.pageSize);
  const data = previewsOf(idx, pageIds);
  const paid = await payForPage(settings, reads, req, data, now);
  const search = await storeOrReuseSearch(
    reads.stores,
    {
      orgId: req.orgId,
      fingerprint,
      params,
      personIds,
      total: outcome.total,
      searchId: searchIdFor(reads.purposeKeys, req.claim, fingerprint),
    },
    now,
  );
  return pageOf(settings, req, search, 0, pageIds, data, paid, now);
}

/** The next page of a stored search, by its cursor. */
async function nextPage(settings: SearchSettings, reads: SearchReads, req: SearchRequest, cursor: string): Promise<SearchPage> {
  const now = reads.now();
  const pos = decodeCursor(settings, cursor, req.orgId, now);
  const search = await findSearch(reads.stores, req.orgId, pos.searchId, now);
  if (!search) throw cursorExpired();
  if (req.query !== undefined || req.filters !== undefined || req.sources !== undefined) {
    if (fingerprintOf(await paramsOf(settings, reads, req)) !== search.fingerprint) {
      throw invalidCursor('The cursor belongs to a different search; send the same query, filters and sources, or none.');
    }
  }
  // Before the page is read: a page that cannot be paid for reads and counts nothing.
  await assertCanFundSmallestAnswer(reads, 'search', { orgId: req.orgId, familyId: req.familyId, agent: req.agent }, pageChargeKey(req));
  const idx = await reads.people.search.get();
  const pageIds = search.personIds.slice(pos.offset, pos.offset + req.pageSize);
  const data = previewsOf(idx, pageIds);
  return pageOf(settings, req, search, pos.offset, pageIds, data, await payForPage(settings, reads, req, data, now), now);
}

function previewsOf(idx: SearchIndex, ids: string[]): PersonPreview[] {
  return ids.flatMap((id) => {
    const o = idx.ordinalOf.get(id);
    return o === undefined ? [] : [personPreview(idx, o)];
  });
}

/**
 * Counts a non-empty page's people against the preview quota, then charges it under the
 * request's claim; an empty page is free. A retry of the request finds its people counted and
 * its charge taken, and answers with what that charge took.
 */
async function payForPage(
  settings: SearchSettings,
  reads: SearchReads,
  req: SearchRequest,
  data: PersonPreview[],
  now: number,
): Promise<{ credits: number; receiptId: string | null }> {
  if (!data.length) return { credits: 0, receiptId: null };
  await admitToQuota(
    settings,
    reads.quotaWindows,
    'previews',
    req.orgId,
    data.map((p) => p.person_id),
    now,
  );
  const receipt = await charge(reads, {
    orgId: req.orgId,
    familyId: req.familyId,
    agent: req.agent,
    amount: PRICES.searchPage,
    operation: SEARCH_OPERATION,
    chargeKey: pageChargeKey(req),
  });
  return { credits: receipt.amount, receiptId: receipt.receiptId };
}

function pageChargeKey(req: SearchRequest): string {
  return claimChargeKey(SEARCH_OPERATION, req.claim);
}

function pageOf(
  settings: SearchSettings,
  req: SearchRequest,
  search: StoredSearch,
  offset: number,
  pageIds: string[],
  data: PersonPreview[],
  paid: { credits: number; receiptId: string | null },
  now: number,
): SearchPage {
  const nextOffset = offset + pageIds.length;
  return {
    search_id: search.searchId,
    data,
    next_cursor: pageIds.length && nextOffset < search.personIds.length ? encodeCursor(settings, req.orgId, search.searchId, nextOffset, now) : null,
    total_estimate: search.total,
    credits_charged: paid.credits,
    receipt_id: paid.receiptId,
  };
}

/**
 * Stores a new search; a retry of a request that stored its search before crashing reuses it.
 * The id names the request and its parameters, so a different query never finds it.
 */
async function storeOrReuseSearch(stores: TalentStores, input: Parameters<typeof storeSearch>[1] & { searchId: string }, now: number): Promise<StoredSearch> {
  try {
    return await storeSearch(stores, input, now);
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    const found = await findSearch(stores, input.orgId, input.searchId, now);
    if (!found || found.fingerprint !== input.fingerprint) throw err;
    return found;
  }
}
