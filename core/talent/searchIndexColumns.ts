import type { PersonLocation } from './person';

/**
 * The index keeps people in columns, not one object per person: at a million people objects
 * with their own strings cost gigabytes of heap. Repeated values (titles, companies, places,
 * skills, sources) are interned once and referenced by code from typed arrays; posting lists
 * are typed arrays (outside the JS heap). A preview is assembled when a page needs it.
 */
export interface SearchIndex {
  version: number;
  /** How many people: ordinals are 0..size-1. */
  size: number;
  personIds: string[];
  names: string[];
  headlines: string[];
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
  /** Interned current title per person, and each title's tokens (phrase filters, matching). */
  titleCode: Uint32Array;
  titles: string[];
  titleTokens: string[][];
  /** Interned location per person: `places` folded [city, region, country, country code] (filters compare codes), `placeNames` as stored. */
  placeCode: Uint32Array;
  places: string[][];
  placeNames: PersonLocation[];
  /** Folded skill → ascending ordinals of people who list it (the exact skills filter). */
  bySkill: Map<string, Int32Array>;
  /** Interned current company per person: `companies` folded (the exact company filter), `companyNames` as stored. */
  companyCode: Uint32Array;
  companies: string[];
  companyNames: string[];
  /** The first TOP_SKILLS skills of each person: 1 + the code into `skills`, 0 pads. */
  topSkills: Uint16Array | Uint32Array;
  skills: string[];
}
