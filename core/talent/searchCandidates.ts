import { createHash } from 'node:crypto';
import { assertCanFund, charge } from '../credits/credits';
import { PRICES } from '../credits/prices';
import { canonicalJson, idempotentChargeKey } from '../idempotency/idempotency';
import { validationFailed } from '../problems';
import { isDuplicateKeyError } from '../store/connection';
import { runSearch, type SearchFilters, type SearchParams } from './candidateSearch';
import { admitToQuota, queryMember } from './quotas';
import { cursorExpired, decodeCursor, encodeCursor, invalidCursor } from './searchCursor';
import { searchIndex, type PersonPreview } from './searchIndex';
import { findSearch, MAX_STORED_SEARCH_PEOPLE, storeSearch, type StoredSearch } from './searches';
import { fold } from './searchText';
import { sourcesForOrganization } from './sources';

export const SEARCH_OPERATION = 'candidates.search';

export interface SearchRequest {
  orgId: string;
  familyId: string;
  idempotencyKey: string;
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

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A retried request (same key) names the same search, so a re-run after a crash reuses it. */
function searchIdFor(orgId: string, idempotencyKey: string): string {
  const d = createHash('sha256').update(`search:${orgId}:${idempotencyKey}`).digest();
  let s = '';
  for (let i = 0; i < 22; i++) s += BASE62[d[i] % 62];
  return `srch_${s}`;
}

function normalizeFilters(f: SearchFilters = {}): SearchFilters {
  const list = (v?: string[]) => (v?.length ? [...new Set(v.map((x) => fold(x)).filter(Boolean))].sort() : undefined);
  const out: SearchFilters = {
    titles: list(f.titles), skills: list(f.skills), locations: list(f.locations), current_company: list(f.current_company),
    seniority: f.seniority?.length ? [...new Set(f.seniority)].sort() : undefined,
    min_years_experience: f.min_years_experience,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as SearchFilters;
}

async function resolveSources(orgId: string, requested?: string[]): Promise<string[]> {
  const usable = (await sourcesForOrganization(orgId)).map((s) => s.id);
  if (!requested?.length) return usable;
  const refused = requested.filter((s) => !usable.includes(s));
  if (refused.length) {
    throw validationFailed(refused.map((s) => ({ field: 'sources', message: `source ${s} does not exist or is not enabled for this organization` })));
  }
  return [...new Set(requested)].sort();
}

function fingerprintOf(params: SearchParams): string {
  return createHash('sha256').update(canonicalJson(params)).digest('hex');
}

/** Throws the first failure in the order given (a stable precedence among concurrent checks). */
function firstFailure(results: PromiseSettledResult<unknown>[]): void {
  for (const r of results) if (r.status === 'rejected') throw r.reason;
}

export async function searchCandidates(req: SearchRequest): Promise<SearchPage> {
  const hasParams = req.query !== undefined || req.filters !== undefined || req.sources !== undefined;
  let search: StoredSearch | null;
  let offset = 0;
  let funded = false;
  if (req.cursor) {
    const pos = decodeCursor(req.cursor, req.orgId);
    search = await findSearch(req.orgId, pos.searchId);
    if (!search) throw cursorExpired();
    if (hasParams) {
      const params: SearchParams = { query: (req.query ?? '').trim(), filters: normalizeFilters(req.filters), sources: await resolveSources(req.orgId, req.sources) };
      if (fingerprintOf(params) !== search.fingerprint) throw invalidCursor('The cursor belongs to a different search; send the same query, filters and sources, or none.');
    }
    offset = pos.offset;
  } else {
    const params: SearchParams = { query: (req.query ?? '').trim(), filters: normalizeFilters(req.filters), sources: await resolveSources(req.orgId, req.sources) };
    if (!params.query && Object.keys(params.filters).length === 0) {
      throw validationFailed([{ field: 'query', message: 'send a query, at least one filter, or a cursor' }]);
    }
    const fingerprint = fingerprintOf(params);
    const searchId = searchIdFor(req.orgId, req.idempotencyKey);
    const idx = await searchIndex();
    const outcome = runSearch(idx, params, MAX_STORED_SEARCH_PEOPLE);
    const personIds = outcome.ordinals.map((o) => idx.people[o].preview.person_id);
    // Three independent store round trips at once: counting the distinct query, storing the
    // search and checking the funds for its first page. A search stored for a request that is
    // then refused is never shown; the retention purge removes it.
    funded = personIds.length > 0;
    const [quota, stored, funds] = await Promise.allSettled([
      admitToQuota('queries', req.orgId, [queryMember(fingerprint)]),
      storeOrReuseSearch({ orgId: req.orgId, fingerprint, params, personIds, total: outcome.total, searchId }),
      funded ? assertCanFund({ orgId: req.orgId, familyId: req.familyId, amount: PRICES.searchPage }) : Promise.resolve(),
    ]);
    firstFailure([quota, stored, funds]);
    search = (stored as PromiseFulfilledResult<StoredSearch>).value;
  }
  const pageIds = search.personIds.slice(offset, offset + req.pageSize);
  const idx = await searchIndex();
  const data = pageIds.flatMap((id) => {
    const o = idx.ordinalOf.get(id);
    return o === undefined ? [] : [idx.people[o].preview];
  });
  const nextOffset = offset + pageIds.length;
  let receiptId: string | null = null;
  let credits = 0;
  if (data.length) {
    credits = PRICES.searchPage;
    if (!funded) await assertCanFund({ orgId: req.orgId, familyId: req.familyId, amount: credits });
    await admitToQuota('previews', req.orgId, data.map((p) => p.person_id));
    receiptId = (await charge({
      orgId: req.orgId, familyId: req.familyId, amount: credits, operation: SEARCH_OPERATION,
      chargeKey: idempotentChargeKey(req.orgId, SEARCH_OPERATION, req.idempotencyKey),
    })).receiptId;
  }
  return {
    search_id: search.searchId,
    data,
    next_cursor: pageIds.length && nextOffset < search.personIds.length ? encodeCursor(req.orgId, search.searchId, nextOffset) : null,
    total_estimate: search.total,
    credits_charged: credits,
    receipt_id: receiptId,
  };
}

/** Stores a new search; a retry of a request that stored its search before crashing reuses it. */
async function storeOrReuseSearch(input: Parameters<typeof storeSearch>[0] & { searchId: string }): Promise<StoredSearch> {
  try {
    return await storeSearch(input);
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    const found = await findSearch(input.orgId, input.searchId);
    if (!found) throw err;
    return found;
  }
}
