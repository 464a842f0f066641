/**
 * The store reads with latency targets of their own, timed one at a time (shared by bench/storeLookups.ts
 * and bench/search.ts): the unlock read of a person and the contact-retrieval job's reuse lookup.
 * Targets at 1,000,000 people: unlock p95 <= 50 ms; a 100-person job's reuse lookup p95 <= 100 ms.
 */
import { retrievedContactId, type JobStores, type RetrievedContactDoc } from '../core/jobs/store';
import { personIdFor } from '../scripts/seeding/generator';
import type { TalentStores } from '../core/talent/store';
import { DEFAULT_PEOPLE_SEED } from '../scripts/seeding/seedPeople';
import type { PurposeKeys } from '../core/crypto/purposeKeys';

export const REUSE_ORG = 'org_storeLookupsBench0000';
export const REUSE_IDS = 100;
export const UNLOCK_P95_MS = 50;
export const REUSE_P95_MS = 100;

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function stats(ms: number[]): { n: number; p50: number; p95: number; max: number } {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p95: percentile(s, 95), max: s[s.length - 1] };
}

export function randomOrdinal(below: number): number {
  return Math.floor(Math.random() * below);
}

/** Milliseconds of each of `n` calls, one at a time. */
export async function timeEach(n: number, op: (i: number) => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await op(i);
    ms.push(performance.now() - t);
  }
  return ms;
}

/** Retrieved contacts of REUSE_ORG for people 0..count-1, in unordered batches; resumable. */
export async function seedRetrievedContacts(
  stores: JobStores,
  keys: PurposeKeys,
  count: number,
  log: (m: string) => void = (m) => process.stderr.write(m),
): Promise<void> {
  // Resumes at the last whole 100,000 already there, probed by _id (a count would scan).
  const present = async (ordinal: number) => stores.jobs.retrievedContactExists(REUSE_ORG, personIdFor(keys, DEFAULT_PEOPLE_SEED, ordinal));
  if (count === 0 || (await present(count - 1))) return;
  let start = 0;
  while (start + 100_000 <= count && (await present(start + 100_000 - 1))) start += 100_000;
  const t = Date.now();
  log(`seeding ${count - start} retrieved contacts …\n`);
  const at = new Date();
  for (let from = start; from < count; from += 4000) {
    const waves: Array<Promise<unknown>> = [];
    for (let first = from; first < Math.min(count, from + 4000); first += 1000) {
      const docs: RetrievedContactDoc[] = [];
      for (let i = first; i < Math.min(count, first + 1000); i++) {
        const personId = personIdFor(keys, DEFAULT_PEOPLE_SEED, i);
        docs.push({
          _id: `${REUSE_ORG}:${personId}`,
          orgId: REUSE_ORG,
          personId,
          fields: ['email'],
          emails: [`p${i}@example.test`],
          phones: [],
          retrievedAt: at,
        });
      }
      waves.push(stores.jobs.insertRetrievedContacts(docs));
    }
    await Promise.all(waves);
    log(`\r  ${Math.min(count, from + 4000)}/${count}   `);
  }
  log(`\n  seeded in ${((Date.now() - t) / 1000).toFixed(0)} s\n`);
}

/** The job's reuse lookup for REUSE_IDS people, half of them retrieved before (`contacts` of them exist). */
export function reusePeople(keys: PurposeKeys, i: number, contacts: number): string[] {
  return Array.from({ length: REUSE_IDS }, (_, k) => (k % 2 ? `per_absent${i}x${k}` : personIdFor(keys, DEFAULT_PEOPLE_SEED, randomOrdinal(contacts))));
}

/** Since when the reuse lookup counts a record. */
export const reuseSince = () => new Date(Date.now() - 86_400_000);

/** The store filter of that lookup (retrievedContactsSince's), for the store's query plan. */
export function reuseFilter(keys: PurposeKeys, i: number, contacts: number): object {
  return { _id: { $in: reusePeople(keys, i, contacts).map((p) => retrievedContactId(REUSE_ORG, p)) }, retrievedAt: { $gte: reuseSince() } };
}

/** Unlock reads (findPersonProfile, present and absent ids) after a warm-up. */
export async function timeUnlockReads(
  stores: TalentStores,
  keys: PurposeKeys,
  people: number,
  samples: number,
): Promise<{ present: number[]; absent: number[] }> {
  const { findPersonProfile } = stores.talent;
  await timeEach(20, () => findPersonProfile(personIdFor(keys, DEFAULT_PEOPLE_SEED, randomOrdinal(people))));
  const present = await timeEach(samples, () => findPersonProfile(personIdFor(keys, DEFAULT_PEOPLE_SEED, randomOrdinal(people))));
  const absent = await timeEach(samples, (i) => findPersonProfile(`per_absentBench${i}`));
  return { present, absent };
}

/** The reuse lookup of a REUSE_IDS-person job, `samples` times. */
export async function timeReuseLookups(stores: JobStores, keys: PurposeKeys, contacts: number, samples: number): Promise<number[]> {
  return timeEach(samples, (i) => stores.jobs.retrievedContactsSince(REUSE_ORG, reusePeople(keys, i, contacts), reuseSince()));
}
