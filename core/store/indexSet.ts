import { createHash } from 'node:crypto';

/**
 * The indexes a database was last prepared with, named by a digest of every model's collection
 * and index definitions. A root that finds its own digest there skips creating them: every
 * replica, worker and operator command opens the store, and each would otherwise send one
 * createIndexes per collection (some sixty round trips) to find that nothing changed. A release
 * that adds or changes an index, or a collection, has another digest and creates them again.
 */

/** The collection holding the digest, one document per database. */
export const INDEX_SET_COLLECTION = 'store_index_sets';
/** The `_id` of that document. */
export const INDEX_SET_ID = 'models';

export interface ModelIndexes {
  collection: string;
  /** The model's index definitions as its schema declares them (`schema.indexes()`). */
  indexes: unknown;
}

/** The digest of a set of models' indexes; the models' order does not matter. */
export function indexSetDigest(models: ModelIndexes[]): string {
  const sorted = [...models].sort((a, b) => (a.collection < b.collection ? -1 : a.collection > b.collection ? 1 : 0));
  return createHash('sha256')
    .update(JSON.stringify(sorted.map((m) => [m.collection, m.indexes])))
    .digest('base64url');
}
