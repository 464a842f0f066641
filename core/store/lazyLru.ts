import { LRUCache } from 'lru-cache';

/**
 * An LRU cache made on its first use. lru-cache allocates its arrays for `max` entries when it is
 * made (about 9 ms for a hundred thousand), and a composition root builds several: the roots
 * that never use one (an operator command, a worker's API-side caches, a test's extra roots) pay
 * nothing for it, and `createDeps` stays cheap.
 */
export function lazyLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(options: LRUCache.Options<K, V, unknown>): () => LRUCache<K, V> {
  let cache: LRUCache<K, V> | undefined;
  return () => (cache ??= new LRUCache<K, V>(options));
}
