import { Schema, model, type InferSchemaType } from 'mongoose';

/**
 * The searchable people (collection `people`) and, apart from them, the contact data the
 * contact provider holds (collection `provider_contacts`). A profile never carries emails or
 * phones: those are delivered only by a paid contact retrieval.
 */

const positionSchema = new Schema(
  {
    title: { type: String, required: true },
    company: { type: String, required: true },
    /** ISO month, `YYYY-MM`. */
    start: { type: String, required: true },
    /** ISO month, or null for the current position. */
    end: { type: String, default: null },
  },
  { _id: false },
);

const educationSchema = new Schema(
  {
    school: { type: String, required: true },
    degree: { type: String, required: true },
    field: { type: String, required: true },
    endYear: { type: Number, required: true },
  },
  { _id: false },
);

export const SENIORITIES = ['intern', 'junior', 'mid', 'senior', 'lead', 'manager', 'director', 'vp', 'executive'] as const;
export type Seniority = (typeof SENIORITIES)[number];

const personSchema = new Schema(
  {
    /** `per_` + 22 opaque characters, derived from (seed, ordinal) by a keyed hash. */
    _id: { type: String, required: true },
    /** The search source the person belongs to (`src_…`). */
    source: { type: String, required: true },
    firstName: { type: String, required: true },
    lastName: { type: String, required: true },
    fullName: { type: String, required: true },
    headline: { type: String, required: true },
    title: { type: String, required: true },
    company: { type: String, required: true },
    seniority: { type: String, enum: SENIORITIES, required: true },
    yearsExperience: { type: Number, required: true },
    skills: { type: [String], default: [] },
    languages: { type: [String], default: [] },
    location: {
      country: { type: String, required: true },
      countryCode: { type: String, required: true },
      region: { type: String, required: true },
      city: { type: String, required: true },
    },
    positions: { type: [positionSchema], default: [] },
    education: { type: [educationSchema], default: [] },
    /** Public profile address; one of the identifiers person matching accepts. */
    profileUrl: { type: String, required: true },
    /** Generator seed and ordinal: internal, never exposed; makes re-seeding idempotent. */
    seed: { type: String, required: true },
    ordinal: { type: Number, required: true },
  },
  { versionKey: false },
);
personSchema.index({ seed: 1, ordinal: 1 }, { unique: true });
export type PersonDoc = InferSchemaType<typeof personSchema> & { _id: string };
export const Person = model('Person', personSchema, 'people');

/**
 * Contact data held by the provider side. A deterministic share of people has no record at
 * all, so a provider lookup can answer not_found.
 */
const providerContactSchema = new Schema(
  {
    _id: { type: String, required: true },
    emails: { type: [String], default: [] },
    phones: { type: [String], default: [] },
  },
  { versionKey: false },
);
export type ProviderContactDoc = InferSchemaType<typeof providerContactSchema> & { _id: string };
export const ProviderContact = model('ProviderContact', providerContactSchema, 'provider_contacts');

/**
 * How far each seed has been generated, and a version that moves on every change of the
 * people collection (search indexes in API processes reload when it moves). A tiny
 * collection: counting a million people on FerretDB would scan them all.
 */
const peopleMetaSchema = new Schema(
  {
    _id: { type: String, required: true },
    seeded: { type: Number, default: 0 },
    version: { type: Number, default: 0 },
  },
  { versionKey: false, timestamps: true },
);
export const PeopleMeta = model('PeopleMeta', peopleMetaSchema, 'people_meta');
