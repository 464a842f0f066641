import { LRUCache } from 'lru-cache';
import { lazyLru } from './lazyLru';

/**
 * A process-wide cache of hot store reads (API keys, limit settings) that every request needs.
 * On the local store each read costs a millisecond or more of a single SQLite writer's time, so
 * without it a replica tops out far below the 1,000 requests/s we aim for.
 *
 * An entry lives `ttlMs` counted from the moment its read STARTED, not when it finished: a read
 * that began before a write may return the old value, but it is forgotten by write + `ttlMs`.
 * So a writer that changes a cached document and then waits `ttlMs` (`waitUntilReadCachesExpire`)
 * knows that no replica still holds the old value: a revoked key fails on every replica's very
 * next request once `key revoke` has returned. Every replica must run with the same `ttlMs`.
 *
 * A hit on an entry near the end of its TTL also starts a new read in the background (refresh ahead)
 * and still answers from the entry, which is within its TTL: a key in steady use is re-read
 * before it expires, so its requests never wait for the store, and the bound above holds as is
 * (the refreshed entry's TTL counts from when its read started). Under many tenants this is
 * what keeps the miss of every organization's key and settings, once a TTL, off the requests.
 * Each entry's refresh point is drawn between 20 % and 35 % of the TTL before its expiry: entries
 * read together (every tenant's at start-up) would otherwise be re-read together forever, a burst
 * of reads once a TTL that the store answers one after another (enough to set the p99 of bench/api.ts).
 */
/**
 * How long a refresh ahead may wait for other reads to share its store command (gatheredReads.ts),
 * and never more than half the time its entry has left: it starts at least a fifth of the TTL
 * before the entry expires, and no request waits for it. Every tenant's entries are refreshed
 * once a TTL, so the longer the wait, the fewer finds they cost.
 */
export const REFRESH_GATHER_MS = 100;
/**
 * How long after one find a read a request waits for may go (gatheredReads.ts): after a start,
 * every tenant's first request misses within the same few milliseconds, and the finds they share
 * leave the store's time to admission; a miss after a quiet spell goes at once.
 */
export const MISS_SPACING_MS = 2;

export class ReadCache<V> {
  private readonly entries: () => LRUCache<string, { value: V; refreshBelowMs: number }>;
  private readonly pending = new Map<string, Promise<V>>();

  constructor(
    maxEntries = 10_000,
    private readonly clock: () => number = () => performance.now(),
    private readonly random: () => number = Math.random,
  ) {
    this.entries = lazyLru({ max: maxEntries, ttlAutopurge: false, ttlResolution: 0, perf: { now: clock } });
  }

  /**
   * The cached value, or the one `read` returns; concurrent misses of one key share one read.
   * `ttl` is READ_CACHE_MS, passed by the caller from its config (0 reads every time). `read` is
   * told how long it may wait to share its store command with other reads: 0 when a request waits
   * for it, up to REFRESH_GATHER_MS for a refresh ahead.
   */
  async get(key: string, ttl: number, read: (gatherMs: number) => Promise<V>): Promise<V> {
    if (ttl <= 0) return read(0);
    const hit = this.entries().get(key);
    if (hit) {
      if (this.entries().getRemainingTTL(key) < hit.refreshBelowMs && !this.pending.has(key))
        this.load(key, () => read(Math.min(REFRESH_GATHER_MS, hit.refreshBelowMs / 2)), ttl).catch(() => undefined);
      return hit.value;
    }
    return this.pending.get(key) ?? this.load(key, () => read(0), ttl);
  }

  /** One read of `key`, shared by whoever asks meanwhile, cached for what is left of `ttl` from its start. */
  private load(key: string, read: () => Promise<V>, ttl: number): Promise<V> {
    const startedAt = this.clock();
    const p = read().then(
      (value) => {
        const left = ttl - (this.clock() - startedAt);
        if (this.pending.get(key) !== p) return value; // invalidated meanwhile: not cached
        if (left >= 1) this.entries().set(key, { value, refreshBelowMs: ttl * (0.2 + 0.15 * this.random()) }, { ttl: Math.floor(left) });
        this.pending.delete(key);
        return value;
      },
      (err: unknown) => {
        if (this.pending.get(key) === p) this.pending.delete(key);
        throw err;
      },
    );
    this.pending.set(key, p);
    return p;
  }

  /**
   * A value of `key` read elsewhere, by a read that started at `startedAt` on this cache's clock:
   * held for what is left of `ttl` from then, as if this cache had read it, so the bound above
   * holds. Ignored while a read of the key is under way or when the entry held outlasts it.
   */
  offer(key: string, value: V, ttl: number, startedAt: number): void {
    if (ttl <= 0 || this.pending.has(key)) return;
    const left = Math.floor(ttl - (this.clock() - startedAt));
    if (left < 1 || (this.entries().has(key) && this.entries().getRemainingTTL(key) >= left)) return;
    this.entries().set(key, { value, refreshBelowMs: ttl * (0.2 + 0.15 * this.random()) }, { ttl: left });
  }

  /** Forgets a key in this process at once (its writer); other replicas forget it within `ttlMs`. */
  invalidate(key: string): void {
    this.entries().delete(key);
    this.pending.delete(key);
  }

  clear(): void {
    this.entries().clear();
    this.pending.clear();
  }
}

/** Resolves once every replica's cached copy of anything read before now has expired. */
export function waitUntilReadCachesExpire(ttlMs: number): Promise<void> {
  if (ttlMs <= 0) return Promise.resolve();
  // A few milliseconds beyond the TTL: timers and the clock are not perfectly exact.
  return new Promise((resolve) => setTimeout(resolve, ttlMs + 25));
}
