/**
 * The stored shapes of the talent area, declared once: the person as kept in `people`, the
 * provider's contact record, and the views other modules take of a person (the generator
 * writes whole records, unlock reads the profile, the search index reads what it indexes).
 * A field added to the person is added here, and the views that should carry it say so.
 */

export const SENIORITIES = ['intern', 'junior', 'mid', 'senior', 'lead', 'manager', 'director', 'vp', 'executive'] as const;
export type Seniority = (typeof SENIORITIES)[number];

export interface PersonPosition {
  title: string;
  company: string;
  /** ISO month, `YYYY-MM`. */
  start: string;
  /** ISO month, or null for the current position. */
  end: string | null;
}

export interface PersonEducation {
  school: string;
  degree: string;
  field: string;
  endYear: number;
}

export interface PersonLocation {
  country: string;
  countryCode: string;
  region: string;
  city: string;
}

/** A person as stored in `people`. */
export interface PersonRecord {
  /** `per_` + 22 opaque characters, derived from (seed, ordinal) by a keyed hash. */
  _id: string;
  /** The search source the person belongs to (`src_…`). */
  source: string;
  firstName: string;
  lastName: string;
  fullName: string;
  headline: string;
  title: string;
  company: string;
  seniority: Seniority;
  yearsExperience: number;
  skills: string[];
  languages: string[];
  location: PersonLocation;
  positions: PersonPosition[];
  education: PersonEducation[];
  /** Public profile address; one of the identifiers person matching accepts. */
  profileUrl: string;
  /** Generator seed and ordinal: internal, never exposed; makes re-seeding idempotent. */
  seed: string;
  ordinal: number;
}

/** The internal fields of a person, never shown to a customer. */
export type PersonInternalField = 'seed' | 'ordinal';

/** What a customer may see of a person (an unlocked profile): all but the internal fields. */
export type PersonProfileRecord = Omit<PersonRecord, PersonInternalField>;

/** The fields the search index reads of each person (the store reads only these). */
export const INDEXED_PERSON_FIELDS = [
  '_id',
  'source',
  'fullName',
  'headline',
  'title',
  'company',
  'seniority',
  'yearsExperience',
  'skills',
  'location',
  'positions',
  'education',
  'languages',
  'profileUrl',
] as const satisfies ReadonlyArray<keyof PersonRecord>;

type IndexedField = (typeof INDEXED_PERSON_FIELDS)[number];
/**
 * One person as the search index takes it. Past positions, education and languages only widen
 * the free text, so an entry may lack them, and of those the index reads only the named words.
 */
export type IndexedPerson = Pick<PersonRecord, Exclude<IndexedField, 'positions' | 'education' | 'languages'>> & {
  positions?: Array<Pick<PersonPosition, 'title' | 'company'>>;
  education?: Array<Pick<PersonEducation, 'school' | 'field' | 'degree'>>;
  languages?: PersonRecord['languages'];
};

/** Contact data held by the provider side (`provider_contacts`), keyed by person id. */
export interface ProviderContactRecord {
  _id: string;
  emails: string[];
  phones: string[];
}
