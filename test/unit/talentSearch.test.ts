import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../core/config';
import { purposeKeysOf } from '../../core/crypto/purposeKeys';
import { runSearch, seek, startSearch } from '../../core/talent/rankCandidates';
import { generatePerson, personIdFor } from '../../scripts/seeding/generator';
import { decodeCursor, encodeCursor } from '../../core/talent/searchCursor';
import { firstIndex, SearchIndexBuilder } from '../../core/talent/searchIndex';
import type { IndexedPerson } from '../../core/talent/person';
import { containsPhrase, fold, tokenize } from '../../core/talent/searchText';
import { BUILT_IN_SOURCE_ID, OPEN_WEB_SOURCE_ID } from '../../core/talent/sources';

// Person ids (generatePerson) and cursors are keyed by the configured secret.
const config = loadConfig({ SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'), SEARCH_CURSOR_TTL_SECONDS: '60' });
const keys = purposeKeysOf(config);

function person(id: string, over: Partial<IndexedPerson>): IndexedPerson {
  return {
    _id: id,
    source: BUILT_IN_SOURCE_ID,
    fullName: 'Ana Silva',
    headline: 'Professional',
    title: 'Accountant',
    company: 'Acme Labs',
    seniority: 'mid',
    yearsExperience: 5,
    skills: ['Excel'],
    location: { country: 'Brazil', countryCode: 'BR', region: 'São Paulo', city: 'São Paulo' },
    positions: [],
    education: [],
    languages: ['Portuguese'],
    profileUrl: `https://profiles.example.com/in/${id}`,
    ...over,
  };
}

function index(people: IndexedPerson[]) {
  const b = new SearchIndexBuilder();
  for (const p of people) b.add(p);
  return b.finish(1);
}

const ids = (idx: ReturnType<typeof index>, ordinals: number[]) => ordinals.map((o) => idx.personIds[o]);

describe('text', () => {
  test('tokens are folded, keep c++ and c#, drop stopwords', () => {
    expect(tokenize('Senior C++ & C# Engineer at Zürich-Labs, 10 years')).toEqual(['senior', 'c++', 'c#', 'engineer', 'zurich', 'labs', '10']);
  });
  test('phrases match whole words in order', () => {
    expect(containsPhrase(tokenize('Senior Software Engineer'), tokenize('software engineer'))).toBe(true);
    expect(containsPhrase(tokenize('Software Development Engineer'), tokenize('software engineer'))).toBe(false);
    expect(containsPhrase(tokenize('Engineer'), [])).toBe(false);
  });
});

describe('ranking', () => {
  const idx = index([
    person('per_mention00', { headline: 'Worked with Python once', title: 'Accountant' }),
    person('per_titlematch', { title: 'Python Developer' }),
    person('per_skillmatch', { skills: ['Python', 'SQL'] }),
    person('per_nomatch000', { title: 'Nurse' }),
    person('per_pastpython', { positions: [{ title: 'Python Engineer', company: 'X' }] }),
  ]);
  const all = { query: 'python', filters: {}, sources: [BUILT_IN_SOURCE_ID] };

  test('a title or skill match beats a passing mention; every word must match', () => {
    const out = runSearch(idx, all, 10);
    expect(out.total).toBe(4);
    expect(ids(idx, out.ordinals).slice(0, 2).sort()).toEqual(['per_skillmatch', 'per_titlematch']);
    expect(ids(idx, out.ordinals).slice(2).sort()).toEqual(['per_mention00', 'per_pastpython']);
    expect(runSearch(idx, { ...all, query: 'python nurse' }, 10).total).toBe(0);
    expect(runSearch(idx, { ...all, query: 'unknownword' }, 10).total).toBe(0);
  });

  test('the same query ranks the same way every time', () => {
    expect(runSearch(idx, all, 10).ordinals).toEqual(runSearch(idx, all, 10).ordinals);
  });

  test('keep bounds the kept people; the total is exact when the scan completes', () => {
    const out = runSearch(idx, all, 1);
    expect(out.ordinals).toHaveLength(1);
    expect(ids(idx, out.ordinals)).toEqual(ids(idx, runSearch(idx, all, 10).ordinals).slice(0, 1));
    const full = runSearch(idx, all, 10);
    expect(full).toMatchObject({ total: 4, exact: true });
  });
});

describe('seek (galloping through an ascending posting list)', () => {
  const list = Int32Array.from([2, 4, 4, 7, 9, 15, 16, 30, 31, 40]);
  const linear = (from: number, target: number) => {
    let i = from;
    while (i < list.length && list[i] < target) i++;
    return i;
  };
  test('the first position at or after `from` holding >= target, for every start and target', () => {
    for (let from = 0; from <= list.length; from++) for (let target = 0; target <= 42; target++) expect(seek(list, from, target)).toBe(linear(from, target));
  });
  test('an empty list and a start past the end return the start', () => {
    expect(seek(new Int32Array(0), 0, 5)).toBe(0);
    expect(seek(list, 12, 1)).toBe(12);
  });
});

describe('at scale: the scan stops once the best score holds `keep` people', () => {
  const b = new SearchIndexBuilder();
  const scalePeople = Array.from({ length: 30_000 }, (_, i) => generatePerson(keys, 'scale', i).person);
  for (const p of scalePeople) b.add(p);
  const big = b.finish(1);
  const params = (query: string, filters: object = {}) => ({ query, filters, sources: [BUILT_IN_SOURCE_ID] });

  test.each([['engineer'], ['software engineer'], ['python'], ['']])('%j: the same people in the same order as a full scan, total within 5 %', (query) => {
    const p = params(query, query ? {} : { min_years_experience: 3 });
    const full = runSearch(big, p, Number.MAX_SAFE_INTEGER);
    const early = runSearch(big, p, 500);
    expect(full.exact).toBe(true);
    expect(early.exact).toBe(false);
    expect(early.ordinals).toEqual(full.ordinals.slice(0, 500));
    expect(Math.abs(early.total - full.total) / full.total).toBeLessThan(0.05);
  });

  test.each([
    ['engineer', {}],
    ['', { min_years_experience: 3 }],
    ['', { skills: ['python'] }],
  ])('%j %j: stepping in slices gives the outcome of one run', (query, filters) => {
    const p = params(query, filters);
    const scan = startSearch(big, p, 2000);
    let slices = 0;
    while (!scan.step(997)) slices++;
    expect(slices).toBeGreaterThan(0);
    expect(scan.outcome()).toEqual(runSearch(big, p, 2000));
  });

  test('a budget bounds the visit: the best of what was visited, an extrapolated total, never exact', () => {
    const filtered = params('', { seniority: ['director'] });
    const full = runSearch(big, filtered, Number.MAX_SAFE_INTEGER);
    const cut = runSearch(big, filtered, Number.MAX_SAFE_INTEGER, 6000);
    expect(cut.exact).toBe(false);
    // Without words the order is the index order: what a cut scan keeps is a prefix of the full answer.
    expect(cut.ordinals).toEqual(full.ordinals.slice(0, cut.ordinals.length));
    expect(cut.ordinals.every((o) => o < 6000)).toBe(true);
    expect(Math.abs(cut.total - full.total) / full.total).toBeLessThan(0.25);

    const ranked = params('engineer', { min_years_experience: 60 });
    const scan = startSearch(big, ranked, 10_000);
    expect(scan.step(5000)).toBe(false);
    expect(scan.visited).toBe(5000);
    expect(scan.outcome()).toEqual({ ordinals: [], total: 0, exact: false });
  });

  test('filters that can match nobody end the search before any visit', () => {
    for (const filters of [{ current_company: ['No Such Company'] }, { skills: ['nosuchskill'] }, { titles: ['zzz qqq'] }, { locations: ['Atlantis'] }]) {
      const scan = startSearch(big, params('engineer', filters), 100);
      expect(scan.step(1)).toBe(true);
      expect(scan.visited).toBe(0);
      expect(scan.outcome()).toEqual({ ordinals: [], total: 0, exact: true });
    }
  });

  test('the skills and company filters keep exactly the people who list them', () => {
    // Person `o` of the index is the o-th generated (the generator is deterministic per ordinal).
    const raw = (o: number) => scalePeople[o];
    const skill = fold(raw(123).skills[0]);
    const company = fold(raw(123).company);
    const out = runSearch(big, params('', { skills: [skill.toUpperCase()], current_company: [company] }), Number.MAX_SAFE_INTEGER);
    const expected = big.personIds.flatMap((_, o) => {
      const p = raw(o);
      return p.skills.map(fold).includes(skill) && fold(p.company) === company ? [o] : [];
    });
    expect(out.ordinals).toEqual(expected);
    expect(out.ordinals).toContain(123);
  });
});

describe('filters are exact', () => {
  const idx = index([
    person('per_a00000000', {
      seniority: 'senior',
      yearsExperience: 9,
      title: 'Senior Software Engineer',
      skills: ['Go', 'Rust'],
      company: 'Helix Labs',
      location: { country: 'Germany', countryCode: 'DE', region: 'Berlin', city: 'Berlin' },
    }),
    person('per_b00000000', { seniority: 'junior', yearsExperience: 2, title: 'Junior Software Engineer', skills: ['Go'], company: 'Nova Cloud' }),
    person('per_c00000000', { seniority: 'senior', yearsExperience: 12, title: 'Software Development Engineer', skills: ['Rust'], source: OPEN_WEB_SOURCE_ID }),
  ]);
  const run = (filters: object, sources = [BUILT_IN_SOURCE_ID, OPEN_WEB_SOURCE_ID]) => ids(idx, runSearch(idx, { query: '', filters, sources }, 10).ordinals);

  test.each([
    [{ seniority: ['senior'] }, ['per_a00000000', 'per_c00000000']],
    [{ min_years_experience: 10 }, ['per_c00000000']],
    [{ titles: ['software engineer'] }, ['per_a00000000', 'per_b00000000']],
    [{ skills: ['go', 'RUST'] }, ['per_a00000000']],
    [{ current_company: ['helix labs'] }, ['per_a00000000']],
    [{ locations: ['de'] }, ['per_a00000000']],
    [{ locations: ['berlin'] }, ['per_a00000000']],
    [{ seniority: ['senior'], min_years_experience: 10, skills: ['go'] }, []],
  ])('%j', (filters, expected) => {
    expect(run(filters)).toEqual(expected);
  });

  test('people of sources not searched are never returned', () => {
    expect(run({ seniority: ['senior'] }, [BUILT_IN_SOURCE_ID])).toEqual(['per_a00000000']);
  });
});

describe('generator', () => {
  test('deterministic per seed and ordinal; ids are opaque', () => {
    const a = generatePerson(keys, 's1', 7);
    expect(generatePerson(keys, 's1', 7)).toEqual(a);
    expect(a.person._id).toBe(personIdFor(keys, 's1', 7));
    expect(a.person._id).toMatch(/^per_[0-9A-Za-z]{22}$/);
    expect(personIdFor(keys, 's2', 7)).not.toBe(a.person._id);
    expect(personIdFor(keys, 's1', 8)).not.toBe(a.person._id);
    expect(JSON.stringify(a.person)).not.toMatch(/@|\+\d{6,}/);
  });

  test('realistic shape, and a share of people without contacts', () => {
    let withoutContact = 0;
    const cultures = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const { person: p, contact } = generatePerson(keys, 'shape', i);
      if (!contact) withoutContact++;
      else expect(contact.emails.length).toBeGreaterThan(0);
      cultures.add(p.location.countryCode);
      expect(p.positions.filter((x) => x.end === null)).toHaveLength(1);
      expect(p.positions[0]).toMatchObject({ title: p.title, company: p.company, end: null });
      expect(p.skills.length).toBeGreaterThanOrEqual(3);
      expect(p.yearsExperience).toBeGreaterThanOrEqual(0);
      expect(p.education.length).toBeGreaterThan(0);
    }
    expect(withoutContact).toBeGreaterThan(25);
    expect(withoutContact).toBeLessThan(150);
    expect(cultures.size).toBeGreaterThan(15);
  });
});

describe('search cursors', () => {
  test('round trip; tampered, foreign and old cursors are refused', () => {
    const c = encodeCursor(config, 'org_aaaaaaaaaa', 'srch_bbbbbbbbbb', 40, Date.now());
    expect(decodeCursor(config, c, 'org_aaaaaaaaaa', Date.now())).toEqual({ searchId: 'srch_bbbbbbbbbb', offset: 40 });
    const [payload, sig] = c.split('.');
    const other = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), offset: 0 })).toString('base64url');
    expect(() => decodeCursor(config, `${other}.${sig}`, 'org_aaaaaaaaaa', Date.now())).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
    expect(() => decodeCursor(config, c, 'org_cccccccccc', Date.now())).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
    expect(() => decodeCursor(config, 'garbage', 'org_aaaaaaaaaa', Date.now())).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
    const old = encodeCursor(config, 'org_aaaaaaaaaa', 'srch_bbbbbbbbbb', 40, Date.now() - 61_000);
    expect(() => decodeCursor(config, old, 'org_aaaaaaaaaa', Date.now())).toThrow(expect.objectContaining({ code: 'cursor_expired', status: 410 }));
  });
});

describe('first index of a replica', () => {
  it('answers 503 dependency_unavailable with Retry-After when the first load takes too long', async () => {
    const never = new Promise<never>(() => undefined);
    await expect(firstIndex(never, 10)).rejects.toMatchObject({ status: 503, code: 'dependency_unavailable', headers: { 'Retry-After': '10' } });
  });

  it('returns the index when it is loaded in time', async () => {
    const idx = new SearchIndexBuilder().finish(1);
    await expect(firstIndex(Promise.resolve(idx), 1000)).resolves.toBe(idx);
  });
});
