import { SENIORITIES, type Seniority } from './person';
import { personTitleTokens } from './searchIndex';
import type { SearchIndex } from './searchIndexColumns';
import { containsPhrase, fold, tokenize, uniqueTokens } from './searchText';

/**
 * Candidate search over the in-process index. Every query word must appear somewhere in the
 * profile; the rank is the sum of per-word weights: a word of the current title or a skill
 * counts 3, a passing mention (headline, past positions, education…) counts 1. Ties keep a
 * stable order. Filters are exact and never affect the rank.
 */
export interface SearchFilters {
  titles?: string[];
  skills?: string[];
  locations?: string[];
  seniority?: Seniority[];
  current_company?: string[];
  min_years_experience?: number;
}

export interface SearchParams {
  query: string;
  filters: SearchFilters;
  sources: string[];
}

export interface SearchOutcome {
  /** Ordinals in rank order, at most `keep`. */
  ordinals: number[];
  /** Every match counted when `exact`; otherwise extrapolated from the part scanned. */
  total: number;
  exact: boolean;
}

const STRONG_WEIGHT = 3;
const WEAK_WEIGHT = 1;

/**
 * The first position at or after `from` whose ordinal is >= `target` in an ascending posting
 * list (its length when none): gallops, then halves, so a long list is skipped in big steps.
 */
export function seek(list: Int32Array, from: number, target: number): number {
  if (from >= list.length || list[from] >= target) return from;
  let lo = from;
  let step = 1;
  let hi = from + step;
  while (hi < list.length && list[hi] < target) {
    lo = hi;
    step *= 2;
    hi = from + step;
  }
  if (hi > list.length) hi = list.length;
  // list[lo] < target; list[hi] >= target or hi === length.
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < target) lo = mid;
    else hi = mid;
  }
  return hi;
}

type Filter = (ordinal: number) => boolean;

/** A lookup table over codes: 1 where the code is wanted. */
function wantedCodes(count: number, wanted: (code: number) => boolean): Uint8Array {
  const table = new Uint8Array(count);
  for (let c = 0; c < count; c++) if (wanted(c)) table[c] = 1;
  return table;
}

/**
 * Exact filters, cheapest first, each a typed-array lookup where it can be. Callers ask in
 * ascending ordinal order, so the skills filter reads its posting lists forward. null when a
 * filter can match nobody (no code wanted, an unknown skill): the search is empty, unscanned.
 */
function compileFilters(idx: SearchIndex, params: SearchParams): Filter[] | null {
  const f = params.filters;
  const out: Filter[] = [];
  const none = (table: Uint8Array) => !table.includes(1);
  const sources = wantedCodes(idx.sources.length, (c) => params.sources.includes(idx.sources[c]));
  if (none(sources)) return null;
  out.push((o) => sources[idx.sourceCode[o]] === 1);
  if (f.seniority?.length) {
    const wanted = wantedCodes(SENIORITIES.length, (c) => f.seniority!.includes(SENIORITIES[c]));
    out.push((o) => wanted[idx.seniorityCode[o]] === 1);
  }
  if (f.min_years_experience !== undefined) {
    const min = f.min_years_experience;
    out.push((o) => idx.years[o] >= min);
  }
  if (f.locations?.length) {
    const wanted = new Set(f.locations.map(fold));
    const codes = wantedCodes(idx.places.length, (c) => idx.places[c].some((p) => wanted.has(p)));
    if (none(codes)) return null;
    out.push((o) => codes[idx.placeCode[o]] === 1);
  }
  if (f.current_company?.length) {
    const wanted = new Set(f.current_company.map(fold));
    const codes = wantedCodes(idx.companies.length, (c) => wanted.has(idx.companies[c]));
    if (none(codes)) return null;
    out.push((o) => codes[idx.companyCode[o]] === 1);
  }
  if (f.skills?.length) {
    const lists = skillLists(idx, f.skills);
    if (lists.some((l) => l.length === 0)) return null;
    const at = new Int32Array(lists.length);
    let last = -1;
    out.push((o) => {
      if (o < last) at.fill(0);
      last = o;
      for (let j = 0; j < lists.length; j++) {
        const p = seek(lists[j], at[j], o);
        at[j] = p;
        if (p === lists[j].length || lists[j][p] !== o) return false;
      }
      return true;
    });
  }
  if (f.titles?.length) {
    // A title word is indexed as strong: a phrase with a word no title or skill carries cannot match.
    const phrases = f.titles.map(tokenize).filter((p) => p.length && p.every((t) => idx.strong.has(t)));
    if (!phrases.length) return null;
    out.push((o) => phrases.some((p) => containsPhrase(personTitleTokens(idx, o), p)));
  }
  return out;
}

function skillLists(idx: SearchIndex, skills: string[]): Int32Array[] {
  return skills.map((s) => idx.bySkill.get(fold(s)) ?? new Int32Array(0));
}

const EMPTY: SearchOutcome = { ordinals: [], total: 0, exact: true };

/** The total of matches when `found` were met among the first `scanned` of `candidates`. */
function estimateTotal(found: number, scanned: number, candidates: number): number {
  return scanned >= candidates ? found : scanned === 0 ? 0 : Math.round((found * candidates) / scanned);
}

/**
 * A search in progress: `step` visits at most `visits` more candidates (people, or positions
 * of the rarest word's posting list) and says whether the scan is over; `outcome` is the
 * result of what was visited so far. Stepping in slices lets a caller yield to the event loop
 * between them and stop at a budget.
 */
export interface SearchScan {
  step(visits: number): boolean;
  /** Candidates visited so far. */
  readonly visited: number;
  outcome(): SearchOutcome;
}

const FINISHED: SearchScan = { step: () => true, visited: 0, outcome: () => EMPTY };

/**
 * Starts a search that keeps the best `keep` in rank order. The scan stops once the best
 * possible score already holds `keep` people (later matches could only tie with them, and ties
 * keep their order), so the ranking is exact; the total is then extrapolated from the share of
 * candidates scanned (`exact` false), which is why the API calls it an estimate. A scan stopped
 * earlier (a budget) answers the same way: the best of what it visited, an extrapolated total.
 */
export function startSearch(idx: SearchIndex, params: SearchParams, keep: number): SearchScan {
  const filters = compileFilters(idx, params);
  if (!filters) return FINISHED;
  const passes = (o: number) => {
    for (let k = 0; k < filters.length; k++) if (!filters[k](o)) return false;
    return true;
  };
  const tokens = uniqueTokens(params.query);
  return tokens.length ? rankedScan(idx, tokens, passes, keep) : filteredScan(idx, params, passes, keep);
}

/** No words: the matches in index order, driven by the rarest wanted skill or everyone. */
function filteredScan(idx: SearchIndex, params: SearchParams, passes: (o: number) => boolean, keep: number): SearchScan {
  const skills = params.filters.skills?.length ? skillLists(idx, params.filters.skills).sort((a, b) => a.length - b.length) : [];
  const rarest = skills.length ? skills[0] : null;
  const count = rarest ? rarest.length : idx.size;
  const ordinals: number[] = [];
  let i = 0;
  const over = () => i >= count || ordinals.length >= keep;
  return {
    step(visits) {
      const end = Math.min(count, i + visits);
      for (; i < end && ordinals.length < keep; i++) {
        const o = rarest ? rarest[i] : i;
        if (passes(o)) ordinals.push(o);
      }
      return over();
    },
    get visited() {
      return i;
    },
    outcome: () => ({ ordinals: [...ordinals], total: estimateTotal(ordinals.length, i, count), exact: i >= count }),
  };
}

/** Words: every word must match; ranked by where they match. */
function rankedScan(idx: SearchIndex, tokens: string[], passes: (o: number) => boolean, keep: number): SearchScan {
  const lists = tokens.map((t) => ({ all: idx.all.get(t), strong: idx.strong.get(t) ?? new Int32Array(0) }));
  if (lists.some((l) => !l.all)) return FINISHED;
  // Intersection of sorted posting lists, driven by the shortest: the other lists and the
  // strong (title or skill) lists are only read forward, skipped through by galloping.
  lists.sort((a, b) => a.all!.length - b.all!.length);
  const driver = lists[0].all!;
  const others = lists.slice(1).map((l) => l.all!);
  const strong = lists.map((l) => l.strong);
  const otherAt = new Int32Array(others.length);
  const strongAt = new Int32Array(strong.length);
  const need = tokens.length;
  const maxScore = need * STRONG_WEIGHT;
  // Scores are small integers: bucket by score instead of sorting the matches.
  const buckets: number[][] = Array.from({ length: maxScore + 1 }, () => []);
  const best = buckets[maxScore];
  let total = 0;
  let scanned = 0;
  let visited = 0;
  return {
    step(visits) {
      const end = Math.min(driver.length, scanned + visits);
      const from = scanned;
      scan: for (; scanned < end && best.length < keep; scanned++) {
        const o = driver[scanned];
        for (let j = 0; j < others.length; j++) {
          const at = seek(others[j], otherAt[j], o);
          otherAt[j] = at;
          if (at === others[j].length) {
            visited += scanned - from;
            scanned = driver.length; // no later person carries every word
            return true;
          }
          if (others[j][at] !== o) continue scan;
        }
        if (!passes(o)) continue;
        let strongCount = 0;
        for (let j = 0; j < strong.length; j++) {
          const at = seek(strong[j], strongAt[j], o);
          strongAt[j] = at;
          if (at < strong[j].length && strong[j][at] === o) strongCount++;
        }
        const score = strongCount * STRONG_WEIGHT + (need - strongCount) * WEAK_WEIGHT;
        total++;
        const bucket = buckets[score];
        if (bucket.length < keep) bucket.push(o);
      }
      visited += scanned - from;
      return scanned >= driver.length || best.length >= keep;
    },
    get visited() {
      return visited;
    },
    outcome() {
      const ordinals: number[] = [];
      for (let s = maxScore; s >= 0 && ordinals.length < keep; s--) {
        for (const o of buckets[s]) {
          if (ordinals.length >= keep) break;
          ordinals.push(o);
        }
      }
      return { ordinals, total: estimateTotal(total, scanned, driver.length), exact: scanned >= driver.length };
    },
  };
}

/**
 * Runs a search to the end, or until `budget` candidates were visited (see startSearch).
 */
export function runSearch(idx: SearchIndex, params: SearchParams, keep: number, budget = Number.POSITIVE_INFINITY): SearchOutcome {
  const scan = startSearch(idx, params, keep);
  scan.step(budget);
  return scan.outcome();
}
