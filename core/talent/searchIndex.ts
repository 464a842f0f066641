import { logger } from '../observability/logger';
import { retryLater } from '../problems';
import { typedCollection } from '../store/typedCollection';
import { Person, SENIORITIES, type PersonDoc, type Seniority } from './models';
import { peopleVersion } from './seedPeople';
import { fold, tokenize } from './searchText';
import { errorMessage } from '../observability/errorMessage';

/**
 * The in-process search index: a derived, read-only copy of the `people` collection (the
 * store stays authoritative; every API replica builds its own and reloads when the people
 * version moves). Why not the store: FerretDB 1.x does not use secondary indexes and has no
 * $text, so every query scans the collection; at a million people that is seconds per
 * search. Here a query intersects sorted posting lists: milliseconds.
 */
export interface PersonPreview {
  person_id: string;
  name: string;
  headline: string;
  title: string;
  company: string;
  seniority: Seniority;
  years_experience: number;
  location: { country: string; country_code: string; region: string; city: string };
  top_skills: string[];
  source: string;
}

export interface IndexedPerson {
  preview: PersonPreview;
  titleTokens: string[];
  companyFolded: string;
  locationFolded: string[];
  nameFolded: string;
  profileUrl: string;
}

export interface SearchIndex {
  version: number;
  people: IndexedPerson[];
  ordinalOf: Map<string, number>;
  /** Token → ascending ordinals of people whose current title or skills carry it. */
  strong: Map<string, Int32Array>;
  /** Token → ascending ordinals of people whose profile text carries it anywhere. */
  all: Map<string, Int32Array>;
  byName: Map<string, number[]>;
  byProfileUrl: Map<string, number>;
  seniorityCode: Uint8Array;
  years: Uint8Array;
  sourceCode: Uint8Array;
  sources: string[];
  /** Interned "city|region|country|country code" per person: location filters compare codes. */
  placeCode: Uint32Array;
  places: string[][];
  /** Folded skill → ascending ordinals of people who list it (the exact skills filter). */
  bySkill: Map<string, Int32Array>;
  /** Interned folded current company per person (the exact company filter). */
  companyCode: Uint32Array;
  companies: string[];
}

const PROJECTION = {
  _id: 1, source: 1, fullName: 1, headline: 1, title: 1, company: 1, seniority: 1, yearsExperience: 1, skills: 1,
  location: 1, positions: 1, education: 1, languages: 1, profileUrl: 1,
};

export interface RawPerson {
  _id: string;
  source: string;
  fullName: string;
  headline: string;
  title: string;
  company: string;
  seniority: Seniority;
  yearsExperience: number;
  skills: string[];
  location: { country: string; countryCode: string; region: string; city: string };
  positions?: Array<{ title: string; company: string }>;
  education?: Array<{ school: string; field: string; degree: string }>;
  languages?: string[];
  profileUrl: string;
}

export function normalizeProfileUrl(url: string): string {
  return fold(url).replace(/^https?:\/\//, '').replace(/^www\./, '').replace(/[?#].*$/, '').replace(/\/+$/, '');
}

function toPostings(lists: Map<string, number[]>): Map<string, Int32Array> {
  const out = new Map<string, Int32Array>();
  for (const [k, v] of lists) out.set(k, Int32Array.from(v));
  return out;
}

function push(map: Map<string, number[]>, key: string, ordinal: number): void {
  const list = map.get(key);
  if (!list) map.set(key, [ordinal]);
  else if (list[list.length - 1] !== ordinal) list.push(ordinal);
}

/** Builds an index from people added one at a time (pure: the loader feeds it from the store). */
export class SearchIndexBuilder {
  private readonly people: IndexedPerson[] = [];
  private readonly ordinalOf = new Map<string, number>();
  private readonly strong = new Map<string, number[]>();
  private readonly all = new Map<string, number[]>();
  private readonly byName = new Map<string, number[]>();
  private readonly byProfileUrl = new Map<string, number>();
  private readonly seniority: number[] = [];
  private readonly years: number[] = [];
  private readonly sourceCodes: number[] = [];
  private readonly sources: string[] = [];
  private readonly placeCodes: number[] = [];
  private readonly places: string[][] = [];
  private readonly placeIndex = new Map<string, number>();
  private readonly bySkill = new Map<string, number[]>();
  private readonly companyCodes: number[] = [];
  private readonly companies: string[] = [];
  private readonly companyIndex = new Map<string, number>();

  get size(): number {
    return this.people.length;
  }

  add(raw: RawPerson): void {
    const ordinal = this.people.length;
    const titleTokens = tokenize(raw.title);
    const skillTokens = raw.skills.flatMap(tokenize);
    for (const t of new Set([...titleTokens, ...skillTokens])) push(this.strong, t, ordinal);
    const text = [
      raw.title, raw.headline, raw.company, raw.skills.join(' '), raw.location.city, raw.location.region, raw.location.country,
      raw.location.countryCode, raw.fullName,
      ...(raw.positions ?? []).flatMap((p) => [p.title, p.company]),
      ...(raw.education ?? []).flatMap((e) => [e.school, e.field, e.degree]),
      ...(raw.languages ?? []),
    ].join(' ');
    for (const t of new Set(tokenize(text))) push(this.all, t, ordinal);
    const nameFolded = fold(raw.fullName);
    const names = this.byName.get(nameFolded);
    if (names) names.push(ordinal);
    else this.byName.set(nameFolded, [ordinal]);
    this.byProfileUrl.set(normalizeProfileUrl(raw.profileUrl), ordinal);
    this.ordinalOf.set(raw._id, ordinal);
    let sc = this.sources.indexOf(raw.source);
    if (sc < 0) sc = this.sources.push(raw.source) - 1;
    this.sourceCodes.push(sc);
    this.seniority.push(SENIORITIES.indexOf(raw.seniority));
    this.years.push(Math.min(255, raw.yearsExperience));
    const place = [raw.location.city, raw.location.region, raw.location.country, raw.location.countryCode].map(fold);
    const placeKey = place.join('|');
    let pc = this.placeIndex.get(placeKey);
    if (pc === undefined) {
      pc = this.places.push(place) - 1;
      this.placeIndex.set(placeKey, pc);
    }
    this.placeCodes.push(pc);
    for (const skill of raw.skills) push(this.bySkill, fold(skill), ordinal);
    const company = fold(raw.company);
    let cc = this.companyIndex.get(company);
    if (cc === undefined) {
      cc = this.companies.push(company) - 1;
      this.companyIndex.set(company, cc);
    }
    this.companyCodes.push(cc);
    this.people.push({
      preview: {
        person_id: raw._id,
        name: raw.fullName,
        headline: raw.headline,
        title: raw.title,
        company: raw.company,
        seniority: raw.seniority,
        years_experience: raw.yearsExperience,
        location: { country: raw.location.country, country_code: raw.location.countryCode, region: raw.location.region, city: raw.location.city },
        top_skills: raw.skills.slice(0, 5),
        source: raw.source,
      },
      titleTokens,
      companyFolded: fold(raw.company),
      locationFolded: [raw.location.city, raw.location.region, raw.location.country, raw.location.countryCode].map(fold),
      nameFolded,
      profileUrl: raw.profileUrl,
    });
  }

  finish(version: number): SearchIndex {
    return {
      version, people: this.people, ordinalOf: this.ordinalOf, strong: toPostings(this.strong), all: toPostings(this.all),
      byName: this.byName, byProfileUrl: this.byProfileUrl, seniorityCode: Uint8Array.from(this.seniority),
      years: Uint8Array.from(this.years), sourceCode: Uint8Array.from(this.sourceCodes), sources: this.sources,
      placeCode: Uint32Array.from(this.placeCodes), places: this.places, bySkill: toPostings(this.bySkill),
      companyCode: Uint32Array.from(this.companyCodes), companies: this.companies,
    };
  }
}

export async function buildSearchIndex(onProgress?: (loaded: number) => void): Promise<SearchIndex> {
  const version = await peopleVersion();
  const builder = new SearchIndexBuilder();
  // Natural (insertion) order: stable across reloads and replicas; sorting a million
  // documents is not something FerretDB can push down.
  const cursor = typedCollection<PersonDoc>(Person).find<RawPerson>({}, { projection: PROJECTION, batchSize: 5000 });
  for await (const raw of cursor) {
    builder.add(raw);
    if (onProgress && builder.size % 50_000 === 0) onProgress(builder.size);
  }
  return builder.finish(version);
}

let current: SearchIndex | null = null;
let loading: Promise<SearchIndex> | null = null;
let checkedAt = 0;
/** How often a replica looks at the people version (a one-document read). */
const VERSION_CHECK_MS = 1000;

/** The current index, (re)built when the people collection changed since it was built. */
export async function searchIndex(): Promise<SearchIndex> {
  if (current && current.people.length > 0 && Date.now() - checkedAt < VERSION_CHECK_MS) return current;
  const version = await peopleVersion();
  checkedAt = Date.now();
  if (current && current.version === version) return current;
  if (!loading) {
    const started = Date.now();
    loading = buildSearchIndex()
      .then((idx) => {
        current = idx;
        logger.info({ people: idx.people.length, ms: Date.now() - started }, 'search index built');
        return idx;
      })
      .finally(() => {
        loading = null;
      });
  }
  // A stale index keeps answering while the new one builds; the first one must be awaited.
  if (current && current.people.length > 0) return current;
  return firstIndex(loading!);
}

/**
 * How long a request waits for a replica's first index. A million people take minutes to load
 * from FerretDB (seconds from MongoDB): a request should get a retryable answer, not hang.
 */
export const FIRST_INDEX_WAIT_MS = 20_000;
const FIRST_INDEX_RETRY_AFTER_SECONDS = 10;

export async function firstIndex(building: Promise<SearchIndex>, waitMs = FIRST_INDEX_WAIT_MS): Promise<SearchIndex> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), waitMs);
  });
  try {
    const idx = await Promise.race([building, waited]);
    if (idx) return idx;
    throw retryLater('dependency_unavailable', 'The search index of this API replica is still loading; retry shortly.', FIRST_INDEX_RETRY_AFTER_SECONDS);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts loading the index at start-up so the first search does not wait for it. */
export function warmSearchIndex(): void {
  searchIndex().catch((err) => logger.warn({ err: { message: errorMessage(err) } }, 'search index not loaded yet'));
}

/** Forget the index (tests that switch databases in one process). */
export function resetSearchIndex(): void {
  current = null;
  checkedAt = 0;
}
