import { Schema, type Connection } from 'mongoose';
import { boundModel } from '../store/boundModel';
import { SENIORITIES, type PersonEducation, type PersonPosition, type PersonRecord, type ProviderContactRecord } from './person';

/**
 * The searchable people (collection `people`) and, apart from them, the contact data the
 * contact provider holds (collection `provider_contacts`). A profile never carries emails or
 * phones: those are delivered only by a paid contact retrieval. Their shapes are declared in
 * ./person.ts; these schemas store them.
 */

const positionSchema = new Schema<PersonPosition>(
  {
    title: { type: String, required: true },
    company: { type: String, required: true },
    start: { type: String, required: true },
    end: { type: String, default: null },
  },
  { _id: false },
);

const educationSchema = new Schema<PersonEducation>(
  {
    school: { type: String, required: true },
    degree: { type: String, required: true },
    field: { type: String, required: true },
    endYear: { type: Number, required: true },
  },
  { _id: false },
);

const personSchema = new Schema<PersonRecord>(
  {
    _id: { type: String, required: true },
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
    profileUrl: { type: String, required: true },
    seed: { type: String, required: true },
    ordinal: { type: Number, required: true },
  },
  { versionKey: false },
);
personSchema.index({ seed: 1, ordinal: 1 }, { unique: true });

/**
 * Contact data held by the provider side. A deterministic share of people has no record at
 * all, so a provider lookup can answer not_found.
 */
const providerContactSchema = new Schema<ProviderContactRecord>(
  {
    _id: { type: String, required: true },
    emails: { type: [String], default: [] },
    phones: { type: [String], default: [] },
  },
  { versionKey: false },
);

/**
 * How far each seed has been generated, and a version that moves on every change of the
 * people collection (search indexes in API processes reload when it moves). A tiny
 * collection: counting a million people on FerretDB would scan them all.
 */
export interface PeopleMetaRecord {
  _id: string;
  seeded: number;
  version: number;
}
const peopleMetaSchema = new Schema<PeopleMetaRecord>(
  {
    _id: { type: String, required: true },
    seeded: { type: Number, default: 0 },
    version: { type: Number, default: 0 },
  },
  { versionKey: false, timestamps: true },
);

/** The people's models on the root's connection. */
export function peopleModels(connection: Connection) {
  return {
    people: boundModel<PersonRecord>(connection, 'Person', personSchema, 'people'),
    providerContacts: boundModel<ProviderContactRecord>(connection, 'ProviderContact', providerContactSchema, 'provider_contacts'),
    peopleMeta: boundModel<PeopleMetaRecord>(connection, 'PeopleMeta', peopleMetaSchema, 'people_meta'),
  };
}
