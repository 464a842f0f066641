import { SENIORITIES, type Seniority } from './models';
import type { PersonPreview, SearchIndex } from './searchIndex';
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
  total: number;
}

const STRONG_WEIGHT = 3;
const WEAK_WEIGHT = 1;

/** Per-index counters, zero between searches (a search resets what it touched). */
const scratches = new WeakMap<SearchIndex, { hits: Uint8Array; strongHits: Uint8Array }>();

function scratch(idx: SearchIndex): { hits: Uint8Array; strongHits: Uint8Array } {
  let s = scratches.get(idx);
  if (!s) {
    s = { hits: new Uint8Array(idx.people.length), strongHits: new Uint8Array(idx.people.length) };
    scratches.set(idx, s);
  }
  return s;
}

type Filter = (ordinal: number) => boolean;

function compileFilters(idx: SearchIndex, params: SearchParams): Filter[] {
  const f = params.filters;
  const out: Filter[] = [];
  const sourceCodes = new Set(params.sources.map((s) => idx.sources.indexOf(s)).filter((c) => c >= 0));
  out.push((o) => sourceCodes.has(idx.sourceCode[o]));
  if (f.seniority?.length) {
    const codes = new Set(f.seniority.map((s) => SENIORITIES.indexOf(s)));
    out.push((o) => codes.has(idx.seniorityCode[o]));
  }
  if (f.min_years_experience !== undefined) {
    const min = f.min_years_experience;
    out.push((o) => idx.years[o] >= min);
  }
  if (f.current_company?.length) {
    const companies = new Set(f.current_company.map(fold));
    out.push((o) => companies.has(idx.people[o].companyFolded));
  }
  if (f.locations?.length) {
    const wanted = new Set(f.locations.map(fold));
    const codes = new Uint8Array(idx.places.length);
    idx.places.forEach((place, code) => {
      if (place.some((p) => wanted.has(p))) codes[code] = 1;
    });
    out.push((o) => codes[idx.placeCode[o]] === 1);
  }
  if (f.skills?.length) {
    const skills = f.skills.map(fold);
    out.push((o) => skills.every((s) => idx.people[o].skillsFolded.includes(s)));
  }
  if (f.titles?.length) {
    const phrases = f.titles.map(tokenize).filter((p) => p.length);
    out.push((o) => phrases.some((p) => containsPhrase(idx.people[o].titleTokens, p)));
  }
  return out;
}

/** Runs a search; keeps the best `keep` in rank order and counts every match. */
export function runSearch(idx: SearchIndex, params: SearchParams, keep: number): SearchOutcome {
  const filters = compileFilters(idx, params);
  const passes = (o: number) => {
    for (const f of filters) if (!f(o)) return false;
    return true;
  };
  const tokens = uniqueTokens(params.query);
  if (!tokens.length) {
    const ordinals: number[] = [];
    let total = 0;
    for (let o = 0; o < idx.people.length; o++) {
      if (!passes(o)) continue;
      total++;
      if (ordinals.length < keep) ordinals.push(o);
    }
    return { ordinals, total };
  }
  const lists = tokens.map((t) => ({ all: idx.all.get(t), strong: idx.strong.get(t) }));
  if (lists.some((l) => !l.all)) return { ordinals: [], total: 0 };
  // Counting over the posting lists (sequential typed-array walks) instead of probing each
  // candidate: hits[o] counts the query words person o carries, strongHits[o] those in
  // the current title or skills. Only people of the shortest list can carry every word.
  const { hits, strongHits } = scratch(idx);
  for (const l of lists) {
    const all = l.all!;
    for (let i = 0; i < all.length; i++) hits[all[i]]++;
    if (l.strong) for (let i = 0; i < l.strong.length; i++) strongHits[l.strong[i]]++;
  }
  let driver = lists[0].all!;
  for (const l of lists) if (l.all!.length < driver.length) driver = l.all!;
  const need = tokens.length;
  const maxScore = tokens.length * STRONG_WEIGHT;
  // Scores are small integers: bucket by score instead of sorting the matches.
  const buckets: number[][] = Array.from({ length: maxScore + 1 }, () => []);
  let total = 0;
  try {
    for (let i = 0; i < driver.length; i++) {
      const o = driver[i];
      if (hits[o] !== need || !passes(o)) continue;
      const strongCount = Math.min(strongHits[o], need);
      const score = strongCount * STRONG_WEIGHT + (need - strongCount) * WEAK_WEIGHT;
      total++;
      const bucket = buckets[score];
      if (bucket.length < keep) bucket.push(o);
    }
  } finally {
    for (const l of lists) {
      const all = l.all!;
      for (let i = 0; i < all.length; i++) hits[all[i]] = 0;
      if (l.strong) for (let i = 0; i < l.strong.length; i++) strongHits[l.strong[i]] = 0;
    }
  }
  const ordinals: number[] = [];
  for (let s = maxScore; s >= 0 && ordinals.length < keep; s--) {
    for (const o of buckets[s]) {
      if (ordinals.length >= keep) break;
      ordinals.push(o);
    }
  }
  return { ordinals, total };
}

export function previewsOf(idx: SearchIndex, ordinals: number[]): PersonPreview[] {
  return ordinals.map((o) => idx.people[o].preview);
}
