import { createHash } from 'node:crypto';
import { SENIORITIES, type PersonPosition, type PersonRecord, type ProviderContactRecord, type Seniority } from '../../core/talent/person';
import { COMPANIES, CULTURES, DEGREES, EXTRA_LANGUAGES, JOB_FAMILIES, PHONE_PREFIX, PLACES, SCHOOLS, SENIORITY_TITLES } from './generatorData';
import { keyedId } from '../../core/talent/keyedIds';
import type { PurposeKeys } from '../../core/crypto/purposeKeys';
import { BUILT_IN_SOURCE_ID, OPEN_WEB_SOURCE_ID } from '../../core/talent/sources';

/**
 * Deterministic synthetic people: person `ordinal` of `seed` is always the same person, with
 * the same opaque id, so seeding is repeatable and resumable. Dates are relative to a fixed
 * reference month, not the clock, for the same reason.
 */
const REFERENCE_YEAR = 2026;
const REFERENCE_MONTH = 1;

/**
 * The person id: a hash of (seed, ordinal) keyed by the server's secret, so ids reveal neither
 * order nor count and cannot be computed from the public seed: a client knows only the ids it
 * was shown. The same SECRETS_ENCRYPTION_KEY (the app's `purposeKeys`) always seeds the same ids.
 */
export function personIdFor(keys: PurposeKeys, seed: string, ordinal: number): string {
  return keyedId(keys, 'per', 'person-id', `people:${seed}:${ordinal}`);
}

/** mulberry32: small, fast, good enough for synthetic data. */
function rngFor(seed: string, ordinal: number): () => number {
  let a = createHash('sha256').update(`${seed}:${ordinal}`).digest().readUInt32LE(0);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(rng: () => number, list: readonly T[]): T {
  return list[Math.floor(rng() * list.length)];
}

function pickWeighted<T extends { weight: number }>(rng: () => number, list: readonly T[]): T {
  const total = list.reduce((s, x) => s + x.weight, 0);
  let r = rng() * total;
  for (const x of list) {
    r -= x.weight;
    if (r < 0) return x;
  }
  return list[list.length - 1];
}

function sample<T>(rng: () => number, list: readonly T[], n: number): T[] {
  const copy = [...list];
  const out: T[] = [];
  while (out.length < n && copy.length) out.push(copy.splice(Math.floor(rng() * copy.length), 1)[0]);
  return out;
}

function month(totalMonths: number): string {
  const y = Math.floor(totalMonths / 12);
  const m = (totalMonths % 12) + 1;
  return `${y}-${String(m).padStart(2, '0')}`;
}

function seniorityFor(years: number, rng: () => number): Seniority {
  if (years < 1) return 'intern';
  if (years < 3) return 'junior';
  if (years < 6) return rng() < 0.7 ? 'mid' : 'senior';
  if (years < 10) return pick(rng, ['senior', 'senior', 'lead', 'manager'] as const);
  if (years < 16) return pick(rng, ['senior', 'lead', 'manager', 'director'] as const);
  return pick(rng, ['lead', 'manager', 'director', 'vp', 'executive'] as const);
}

function slug(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');
}

function companyDomain(company: string): string {
  return `${slug(company)}.example`;
}

export function generatePerson(keys: PurposeKeys, seed: string, ordinal: number): { person: PersonRecord; contact: ProviderContactRecord | null } {
  const rng = rngFor(seed, ordinal);
  const id = personIdFor(keys, seed, ordinal);
  const culture = pick(rng, CULTURES);
  const firstName = pick(rng, culture.first);
  const lastName = pick(rng, culture.last);
  const countryCode = pick(rng, culture.countries);
  const place = PLACES[countryCode];
  const [region, cities] = pick(rng, place.regions);
  const city = pick(rng, cities);
  const family = pickWeighted(rng, JOB_FAMILIES);
  const baseTitle = pick(rng, family.titles);
  const yearsExperience = Math.min(40, Math.floor(Math.pow(rng(), 1.4) * 32));
  const seniority = seniorityFor(yearsExperience, rng);
  const title = SENIORITY_TITLES[seniority](baseTitle, family.name);
  const skills = sample(rng, family.skills, 3 + Math.floor(rng() * 6));

  // Career: walk back from now through 1–5 positions covering the years of experience.
  const nowMonths = REFERENCE_YEAR * 12 + (REFERENCE_MONTH - 1);
  const careerStart = nowMonths - Math.max(3, yearsExperience * 12 + Math.floor(rng() * 11));
  const positionCount = Math.max(1, Math.min(5, 1 + Math.floor(yearsExperience / 4) + (rng() < 0.3 ? 1 : 0)));
  const cuts = Array.from({ length: positionCount - 1 }, () => careerStart + Math.floor(rng() * (nowMonths - careerStart))).sort((a, b) => a - b);
  const bounds = [careerStart, ...cuts, nowMonths];
  const company = pick(rng, COMPANIES);
  const positions: PersonPosition[] = [];
  const seniorityIndex = SENIORITIES.indexOf(seniority);
  for (let i = positionCount - 1; i >= 0; i--) {
    const isCurrent = i === positionCount - 1;
    const pastLevel = SENIORITIES[Math.max(0, seniorityIndex - (positionCount - 1 - i))];
    positions.push({
      title: isCurrent ? title : SENIORITY_TITLES[pastLevel](pick(rng, family.titles), family.name),
      company: isCurrent ? company : pick(rng, COMPANIES),
      start: month(bounds[i]),
      end: isCurrent ? null : month(bounds[i + 1]),
    });
  }

  const degree = pick(rng, DEGREES);
  const field = pick(rng, family.fields);
  const endYear = Math.floor(careerStart / 12) - (rng() < 0.5 ? 0 : 1);
  const education = [{ school: pick(rng, SCHOOLS), degree, field, endYear }];
  if (rng() < 0.25 && degree.startsWith('B')) {
    education.unshift({ school: pick(rng, SCHOOLS), degree: pick(rng, ['MSc', 'MBA', 'MA']), field, endYear: endYear + 2 });
  }
  const languages = [...new Set([...culture.languages, ...(rng() < 0.3 ? [pick(rng, EXTRA_LANGUAGES)] : [])])];

  const years = yearsExperience === 1 ? '1 year' : `${yearsExperience} years`;
  const headline = rng() < 0.5 ? `${title} at ${company}` : `${title} · ${skills.slice(0, 3).join(', ')} · ${years} of experience`;

  const person: PersonRecord = {
    _id: id,
    source: rng() < 0.9 ? BUILT_IN_SOURCE_ID : OPEN_WEB_SOURCE_ID,
    firstName,
    lastName,
    fullName: `${firstName} ${lastName}`,
    headline,
    title,
    company,
    seniority,
    yearsExperience,
    skills,
    languages,
    location: { country: place.country, countryCode, region, city },
    positions,
    education,
    profileUrl: `https://profiles.example.com/in/${slug(firstName)}-${slug(lastName)}-${id.slice(4, 12).toLowerCase()}`,
    seed,
    ordinal,
  };

  // About one person in seven has no contact record with the provider.
  let contact: ProviderContactRecord | null = null;
  if (rng() >= 0.15) {
    const local = `${slug(firstName)}.${slug(lastName)}`;
    const emails = [`${local}@${companyDomain(company)}`];
    if (rng() < 0.6) emails.push(`${local}${Math.floor(rng() * 100)}@${pick(rng, ['mail.example', 'inbox.example', 'post.example'])}`);
    const phones: string[] = [];
    const phoneCount = rng() < 0.2 ? 0 : rng() < 0.7 ? 1 : 2;
    for (let i = 0; i < phoneCount; i++) {
      phones.push(`${PHONE_PREFIX[countryCode] ?? '+1'}${String(100_000_000 + Math.floor(rng() * 899_999_999))}`);
    }
    contact = { _id: id, emails, phones };
  }
  return { person, contact };
}
