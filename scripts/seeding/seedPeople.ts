import { generatePerson } from './generator';
import type { PersonRecord, ProviderContactRecord } from '../../core/talent/person';
import type { TalentStores } from '../../core/talent/store';
import type { PurposeKeys } from '../../core/crypto/purposeKeys';

export const DEFAULT_PEOPLE_SEED = 'talent-v1';
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
 * are keyed by `purposeKeys` (the app's, of the config's SECRETS_ENCRYPTION_KEY).
 */
export async function seedPeople(
  stores: TalentStores,
  opts: {
    purposeKeys: PurposeKeys;
    count: number;
    seed?: string;
    onProgress?: (p: SeedProgress) => void;
  },
): Promise<{ inserted: number }> {
  const { talent } = stores;
  const seed = opts.seed ?? DEFAULT_PEOPLE_SEED;
  let from = await talent.seededUpTo(seed);
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
        const { person, contact } = generatePerson(opts.purposeKeys, seed, i);
        people.push(person);
        if (contact) contacts.push(contact);
      }
      writes.push(Promise.all([talent.insertPeople(people), talent.insertProviderContacts(contacts)]).then(([written]) => written));
    }
    for (const n of await Promise.all(writes)) inserted += n;
    await talent.recordSeeded(seed, waveEnd);
    from = waveEnd;
    const seconds = Math.max(0.001, (Date.now() - started) / 1000);
    opts.onProgress?.({ inserted: from, total: opts.count, ratePerSecond: Math.round((inserted || 1) / seconds) });
  }
  await talent.bumpPeopleVersion();
  return { inserted };
}
