import type { KeyReads } from './apiKeys';
import type { KeysStore } from './store';

/**
 * New keys held ready on every replica before their first use. A key is usually used within
 * seconds of its creation (a script that creates an organization and calls the API with its key,
 * a person pasting a key from the console), and that first request would otherwise wait for a
 * store read of the key before it can even be admitted: a round trip more on the request a new
 * integrator times first, and, when many organizations start together, a find each in the store's
 * queue ahead of their slot inserts.
 *
 * A replica reads the keys created in the last NEW_KEY_WINDOW_MS and not used yet every half of READ_CACHE_MS
 * (at most twice a second) and hands them to its key reads, which hold each one for READ_CACHE_MS
 * from the start of that find, exactly as if a request had read it then: a revocation, which waits out READ_CACHE_MS after its
 * write, is honoured on every replica as before. A key older than the window is read on its first
 * use. A key in use drops out of the reads once its use is written (`last_used_at`, keyUse.ts):
 * from then on the read cache's refresh ahead keeps it current where it is used, so the reads
 * return only keys still waiting for their first request, and usually nothing.
 */

/** How long after its creation a key is held ready. */
export const NEW_KEY_WINDOW_MS = 60_000;
/** At most this many of the newest keys per read: a burst of key creation costs the replicas a bounded find. */
export const NEW_KEYS_PER_READ = 200;

/**
 * The shortest time between two reads of new keys. Each read is a find that filters and sorts
 * the keys, so a replica's background load stays bounded whatever READ_CACHE_MS is; with
 * READ_CACHE_MS under twice this (the tests' 100 ms, so that a revocation returns at once) a new
 * key is held ready only for READ_CACHE_MS after each read, and its first request otherwise reads
 * it, as any key's first use did.
 */
export const NEW_KEY_READ_MIN_INTERVAL_MS = 500;

/** When a read of new keys is due, at `ttlMs / 2` intervals, at least NEW_KEY_READ_MIN_INTERVAL_MS apart: each read's keys are held for `ttlMs` from its start, so the next read comes while they are still held. */
export function newKeyReadInterval(ttlMs: number): number {
  return Math.max(NEW_KEY_READ_MIN_INTERVAL_MS, Math.floor(ttlMs / 2));
}

/** The creation time from which keys are new at `nowMs` (wall clock, the app's). */
export function newKeysSince(nowMs: number): Date {
  return new Date(nowMs - NEW_KEY_WINDOW_MS);
}

/** One read of the new keys, offered to `reads`; resolves when done (a failed read is skipped: the keys are then read on their first use). */
export async function readNewKeys(
  store: Pick<KeysStore, 'unusedKeysCreatedSince'>,
  reads: Pick<KeyReads, 'offer'>,
  ttlMs: number,
  now: () => number,
  clock: () => number,
): Promise<number> {
  const startedAt = clock();
  const keys = await store.unusedKeysCreatedSince(newKeysSince(now()), NEW_KEYS_PER_READ).catch(() => []);
  reads.offer(keys, ttlMs, startedAt);
  return keys.length;
}

/** Reads the new keys now and every `newKeyReadInterval(ttlMs)` until stopped, one read at a time. */
export function keepNewKeysReady(
  store: Pick<KeysStore, 'unusedKeysCreatedSince'>,
  reads: Pick<KeyReads, 'offer'>,
  ttlMs: number,
  now: () => number,
  clock: () => number = () => performance.now(),
): { stop: () => void } {
  if (ttlMs <= 0) return { stop: () => undefined };
  let reading = false;
  const tick = () => {
    if (reading) return;
    reading = true;
    void readNewKeys(store, reads, ttlMs, now, clock).finally(() => (reading = false));
  };
  tick();
  // Unreferenced: holding keys ready alone keeps no process alive.
  const timer = setInterval(tick, newKeyReadInterval(ttlMs)).unref();
  return { stop: () => clearInterval(timer) };
}
