import type { Logger } from '../observability/logger';
import { retryLater } from '../problems';
import { SENIORITIES, type IndexedPerson, type PersonLocation, type Seniority } from './person';
import type { TalentStores } from './store';
import { fold, tokenize } from './searchText';
import { errorMessage } from '../observability/errorMessage';
import { loadSearchIndexSnapshot, saveSearchIndexSnapshot } from './searchIndexSnapshot';
import type { SearchIndex } from './searchIndexColumns';

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

const TOP_SKILLS = 5;

export function normalizeProfileUrl(url: string): string {
  return fold(url)
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '');
}

/** The preview of one person, assembled from the columns. */
export function personPreview(idx: SearchIndex, o: number): PersonPreview {
  const place = idx.placeNames[idx.placeCode[o]];
  const top: string[] = [];
  for (let k = 0; k < TOP_SKILLS; k++) {
    const code = idx.topSkills[o * TOP_SKILLS + k];
    if (code !== 0) top.push(idx.skills[code - 1]);
  }
  return {
    person_id: idx.personIds[o],
    name: idx.names[o],
    headline: idx.headlines[o],
    title: idx.titles[idx.titleCode[o]],
    company: idx.companyNames[idx.companyCode[o]],
    seniority: SENIORITIES[idx.seniorityCode[o]],
    years_experience: idx.years[o],
    location: { country: place.country, country_code: place.countryCode, region: place.region, city: place.city },
    top_skills: top,
    source: idx.sources[idx.sourceCode[o]],
  };
}

/** The tokens of a person's current title. */
export function personTitleTokens(idx: SearchIndex, o: number): string[] {
  return idx.titleTokens[idx.titleCode[o]];
}

/** Ascending ordinals per key in growable typed arrays: a million people's postings stay off the JS heap. */
class PostingLists {
  private readonly lists = new Map<string, { buf: Int32Array; n: number }>();

  push(key: string, ordinal: number): void {
    const list = this.lists.get(key);
    if (!list) {
      const buf = new Int32Array(4);
      buf[0] = ordinal;
      this.lists.set(key, { buf, n: 1 });
      return;
    }
    if (list.buf[list.n - 1] === ordinal) return;
    if (list.n === list.buf.length) {
      const grown = new Int32Array(list.buf.length * 2);
      grown.set(list.buf);
      list.buf = grown;
    }
    list.buf[list.n++] = ordinal;
  }

  finish(): Map<string, Int32Array> {
    const out = new Map<string, Int32Array>();
    for (const [k, v] of this.lists) out.set(k, v.buf.slice(0, v.n));
    return out;
  }
}

/** Strings to dense codes, each distinct string kept once. */
class Interner<T = string> {
  readonly values: T[] = [];
  private readonly codes = new Map<string, number>();

  code(key: string, value: () => T): number {
    let c = this.codes.get(key);
    if (c === undefined) {
      c = this.values.push(value()) - 1;
      this.codes.set(key, c);
    }
    return c;
  }
}

/** Grows a typed array column by doubling. */
class Column<A extends Uint8Array | Uint32Array | Uint16Array> {
  private n = 0;
  constructor(
    private buf: A,
    private readonly make: (n: number) => A,
  ) {}
  push(v: number): void {
    if (this.n === this.buf.length) {
      const grown = this.make(this.buf.length * 2);
      grown.set(this.buf);
      this.buf = grown;
    }
    this.buf[this.n++] = v;
  }
  finish(): A {
    return this.buf.slice(0, this.n) as A;
  }
}

/** Builds an index from people added one at a time (pure: the loader feeds it from the store). */
export class SearchIndexBuilder {
  private readonly personIds: string[] = [];
  private readonly names: string[] = [];
  private readonly headlines: string[] = [];
  private readonly ordinalOf = new Map<string, number>();
  private readonly strong = new PostingLists();
  private readonly all = new PostingLists();
  private readonly byName = new Map<string, number[]>();
  private readonly byProfileUrl = new Map<string, number>();
  private readonly seniority = new Column(new Uint8Array(1024), (n) => new Uint8Array(n));
  private readonly years = new Column(new Uint8Array(1024), (n) => new Uint8Array(n));
  private readonly sourceCodes = new Column(new Uint8Array(1024), (n) => new Uint8Array(n));
  private readonly sources = new Interner();
  private readonly titleCodes = new Column(new Uint32Array(1024), (n) => new Uint32Array(n));
  private readonly titles = new Interner<{ title: string; tokens: string[] }>();
  private readonly placeCodes = new Column(new Uint32Array(1024), (n) => new Uint32Array(n));
  private readonly places = new Interner<{ folded: string[]; names: PersonLocation }>();
  private readonly bySkill = new PostingLists();
  private readonly companyCodes = new Column(new Uint32Array(1024), (n) => new Uint32Array(n));
  private readonly companies = new Interner<{ folded: string; name: string }>();
  private readonly topSkills = new Column(new Uint32Array(4096), (n) => new Uint32Array(n));
  private readonly skills = new Interner();

  get size(): number {
    return this.personIds.length;
  }

  add(raw: IndexedPerson): void {
    const ordinal = this.personIds.length;
    const titleCode = this.titles.code(raw.title, () => ({ title: raw.title, tokens: tokenize(raw.title) }));
    const titleTokens = this.titles.values[titleCode].tokens;
    const skillTokens = raw.skills.flatMap(tokenize);
    for (const t of new Set([...titleTokens, ...skillTokens])) this.strong.push(t, ordinal);
    const text = [
      raw.title,
      raw.headline,
      raw.company,
      raw.skills.join(' '),
      raw.location.city,
      raw.location.region,
      raw.location.country,
      raw.location.countryCode,
      raw.fullName,
      ...(raw.positions ?? []).flatMap((p) => [p.title, p.company]),
      ...(raw.education ?? []).flatMap((e) => [e.school, e.field, e.degree]),
      ...(raw.languages ?? []),
    ].join(' ');
    for (const t of new Set(tokenize(text))) this.all.push(t, ordinal);
    const nameFolded = fold(raw.fullName);
    const names = this.byName.get(nameFolded);
    if (names) names.push(ordinal);
    else this.byName.set(nameFolded, [ordinal]);
    this.byProfileUrl.set(normalizeProfileUrl(raw.profileUrl), ordinal);
    this.ordinalOf.set(raw._id, ordinal);
    this.personIds.push(raw._id);
    this.names.push(raw.fullName);
    this.headlines.push(raw.headline);
    this.sourceCodes.push(this.sources.code(raw.source, () => raw.source));
    this.seniority.push(SENIORITIES.indexOf(raw.seniority));
    this.years.push(Math.min(255, raw.yearsExperience));
    this.titleCodes.push(titleCode);
    const loc = raw.location;
    this.placeCodes.push(
      this.places.code(`${loc.city}|${loc.region}|${loc.country}|${loc.countryCode}`, () => ({
        folded: [loc.city, loc.region, loc.country, loc.countryCode].map(fold),
        names: { country: loc.country, countryCode: loc.countryCode, region: loc.region, city: loc.city },
      })),
    );
    for (const skill of raw.skills) this.bySkill.push(fold(skill), ordinal);
    this.companyCodes.push(this.companies.code(raw.company, () => ({ folded: fold(raw.company), name: raw.company })));
    for (let k = 0; k < TOP_SKILLS; k++) this.topSkills.push(k < raw.skills.length ? 1 + this.skills.code(raw.skills[k], () => raw.skills[k]) : 0);
  }

  finish(version: number): SearchIndex {
    const top = this.topSkills.finish();
    return {
      version,
      size: this.personIds.length,
      personIds: this.personIds,
      names: this.names,
      headlines: this.headlines,
      ordinalOf: this.ordinalOf,
      strong: this.strong.finish(),
      all: this.all.finish(),
      byName: this.byName,
      byProfileUrl: this.byProfileUrl,
      seniorityCode: this.seniority.finish(),
      years: this.years.finish(),
      sourceCode: this.sourceCodes.finish(),
      sources: this.sources.values,
      titleCode: this.titleCodes.finish(),
      titles: this.titles.values.map((t) => t.title),
      titleTokens: this.titles.values.map((t) => t.tokens),
      placeCode: this.placeCodes.finish(),
      places: this.places.values.map((p) => p.folded),
      placeNames: this.places.values.map((p) => p.names),
      bySkill: this.bySkill.finish(),
      companyCode: this.companyCodes.finish(),
      companies: this.companies.values.map((c) => c.folded),
      companyNames: this.companies.values.map((c) => c.name),
      // Fewer than 65,535 distinct skills (the usual case) fit in half the bytes.
      topSkills: this.skills.values.length < 0xffff ? Uint16Array.from(top) : top,
      skills: this.skills.values,
    };
  }
}

/** People per batch of the index load. */
const LOAD_BATCH = 2000;

/**
 * The index of the current people version: from its snapshot in the store when one exists,
 * else read from the people (and then stored as the snapshot for the next start and the other
 * replicas; a failure to store it only costs the next start time).
 */
export async function loadSearchIndex(stores: TalentStores, logger: Logger, now: () => number, onProgress?: (loaded: number) => void): Promise<SearchIndex> {
  const version = await stores.talent.peopleVersion();
  const snapshot = await loadSearchIndexSnapshot(stores, version).catch((err: unknown) => {
    logger.warn({ err: { message: errorMessage(err) } }, 'search index snapshot unreadable; reading the people');
    return null;
  });
  if (snapshot) return snapshot;
  const idx = await buildSearchIndex(stores, onProgress, version);
  if (idx.size > 0) {
    await saveSearchIndexSnapshot(stores, idx, new Date(now())).catch((err: unknown) =>
      logger.warn({ err: { message: errorMessage(err) } }, 'search index snapshot not stored'),
    );
  }
  return idx;
}

/** Reads every person into a new index (natural order). */
export async function buildSearchIndex(stores: TalentStores, onProgress?: (loaded: number) => void, knownVersion?: number): Promise<SearchIndex> {
  const version = knownVersion ?? (await stores.talent.peopleVersion());
  const builder = new SearchIndexBuilder();
  // The store's order (natural): stable across reloads and replicas.
  for await (const batch of stores.talent.peopleForIndex(LOAD_BATCH)) {
    // Lets the store's read of the next batch, already asked for, get going before indexing.
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (const raw of batch) {
      builder.add(raw);
      if (onProgress && builder.size % 50_000 === 0) onProgress(builder.size);
    }
  }
  return builder.finish(version);
}

/** How often a replica looks at the people version (a one-document read). */
const VERSION_CHECK_MS = 1000;

/**
 * One app's search index: (re)built when the people collection changed since it was built,
 * checked at most once a second. The composition root builds one per app (core/deps.ts).
 */
export class SearchIndexHolder {
  private current: SearchIndex | null = null;
  private loading: Promise<SearchIndex> | null = null;
  private checkedAt = 0;

  constructor(
    private readonly stores: TalentStores,
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {}

  async get(): Promise<SearchIndex> {
    if (this.current && this.current.size > 0 && this.now() - this.checkedAt < VERSION_CHECK_MS) return this.current;
    const version = await this.stores.talent.peopleVersion();
    this.checkedAt = this.now();
    if (this.current && this.current.version === version) return this.current;
    if (!this.loading) {
      const started = this.now();
      this.loading = loadSearchIndex(this.stores, this.logger, this.now)
        .then((idx) => {
          this.current = idx;
          this.logger.info({ people: idx.size, ms: this.now() - started }, 'search index built');
          return idx;
        })
        .finally(() => {
          this.loading = null;
        });
    }
    // A stale index keeps answering while the new one builds; the first one must be awaited.
    if (this.current && this.current.size > 0) return this.current;
    return firstIndex(this.loading);
  }

  /** Starts loading the index at start-up so the first search does not wait for it. */
  warm(): void {
    this.get().catch((err) => this.logger.warn({ err: { message: errorMessage(err) } }, 'search index not loaded yet'));
  }

  /** Forgets the index, so the next read builds one from the store (a benchmark switching databases). */
  reset(): void {
    this.current = null;
    this.checkedAt = 0;
  }
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
