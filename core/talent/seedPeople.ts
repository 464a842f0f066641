import { insertManyIgnoringDuplicates } from '../store/inserts';
import { typedCollection } from '../store/typedCollection';
import { generatePerson } from './generator';
import { PeopleMeta, Person, ProviderContact } from './models';
import type { PersonRecord, ProviderContactRecord } from './person';

export const DEFAULT_PEOPLE_SEED = 'talent-v1';
const VERSION_ID = 'version';
const BATCH = 1000;
const WAVE = 4;

export interface SeedProgress {
  inserted: number;
  total: number;
  ratePerSecond: number;
}

/**
 * Generates people `0..count-1` of `seed` and their provider contacts. Resumable and
 * idempotent: `people_meta` remembers how far each seed got, inserts are unordered and
 * duplicate ids are ignored, so a crash mid-way or a second run adds nothing twice. Person ids
 * are keyed by `secretsKey` (the config's SECRETS_ENCRYPTION_KEY).
 */
export async function seedPeople(opts: {
  secretsKey: Buffer;
  count: number;
  seed?: string;
  onProgress?: (p: SeedProgress) => void;
}): Promise<{ inserted: number }> {
  const seed = opts.seed ?? DEFAULT_PEOPLE_SEED;
  const metaId = `seed:${seed}`;
  const meta = await PeopleMeta.findById(metaId).lean();
  let from = meta?.seeded ?? 0;
  if (from >= opts.count) return { inserted: 0 };
  const started = Date.now();
  let inserted = 0;
  while (from < opts.count) {
    // A wave of batches in flight keeps the store busy while the next one is generated;
    // progress is recorded only after the whole wave, so a resumed run has no gaps.
    const waveEnd = Math.min(opts.count, from + BATCH * WAVE);
    const writes: Array<Promise<number>> = [];
    for (let start = from; start < waveEnd; start += BATCH) {
      const to = Math.min(waveEnd, start + BATCH);
      const people: PersonRecord[] = [];
      const contacts: ProviderContactRecord[] = [];
      for (let i = start; i < to; i++) {
        const { person, contact } = generatePerson(opts.secretsKey, seed, i);
        people.push(person);
        if (contact) contacts.push(contact);
      }
      writes.push(
        Promise.all([
          insertManyIgnoringDuplicates(typedCollection<PersonRecord>(Person), people),
          insertManyIgnoringDuplicates(typedCollection<ProviderContactRecord>(ProviderContact), contacts),
        ]).then(([written]) => written.inserted),
      );
    }
    for (const n of await Promise.all(writes)) inserted += n;
    await PeopleMeta.updateOne({ _id: metaId }, { $max: { seeded: waveEnd } }, { upsert: true });
    from = waveEnd;
    const seconds = Math.max(0.001, (Date.now() - started) / 1000);
    opts.onProgress?.({ inserted: from, total: opts.count, ratePerSecond: Math.round((inserted || 1) / seconds) });
  }
  await PeopleMeta.updateOne({ _id: VERSION_ID }, { $inc: { version: 1 } }, { upsert: true });
  return { inserted };
}

/** How many people are seeded (sum over seeds), read from `people_meta` (no scan). */
export async function peopleCount(): Promise<number> {
  const metas = await PeopleMeta.find({ _id: { $regex: /^seed:/ } }, { seeded: 1 }).lean();
  return metas.reduce((s, m) => s + (m.seeded ?? 0), 0);
}

/** Moves whenever the people collection changes; search indexes reload when it moves. */
export async function peopleVersion(): Promise<number> {
  return (await PeopleMeta.findById(VERSION_ID, { version: 1 }).lean())?.version ?? 0;
}
