import type { Collection, Document, OptionalUnlessRequiredId } from 'mongodb';
import { isDuplicateKeyError } from './duplicateKey';

/**
 * Inserts `doc` unless a document with its unique key exists: true when this call inserted
 * it. A unique insert is the one write every store we run on (MongoDB, FerretDB 1.x) applies
 * atomically, so "whoever inserts first wins" is how the domain claims slots and versions.
 */
export async function insertOnce<T extends Document>(collection: Collection<T>, doc: OptionalUnlessRequiredId<T>): Promise<boolean> {
  try {
    await collection.insertOne(doc);
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

export interface BulkInsertResult {
  inserted: number;
  /** Indexes (in `docs`) of the documents refused as duplicates. */
  duplicates: number[];
}

/**
 * Inserts all `docs` (unordered: one duplicate does not stop the rest), skipping those whose
 * unique key exists already. Any other write error is thrown.
 */
export async function insertManyIgnoringDuplicates<T extends Document>(
  collection: Collection<T>,
  docs: ReadonlyArray<OptionalUnlessRequiredId<T>>,
): Promise<BulkInsertResult> {
  if (!docs.length) return { inserted: 0, duplicates: [] };
  try {
    return { inserted: (await collection.insertMany(docs, { ordered: false })).insertedCount, duplicates: [] };
  } catch (err) {
    const failed = bulkWriteErrors(err);
    if (!isDuplicateKeyError(err) && !failed.length) throw err;
    if (failed.some((w) => !isDuplicateKeyError(w))) throw err;
    return { inserted: docs.length - failed.length, duplicates: failed.map((w) => w.index) };
  }
}

interface BulkWriteEntry {
  index: number;
}

/** The per-document errors of a failed bulk insert; drivers give one entry or a list. */
function bulkWriteErrors(err: unknown): BulkWriteEntry[] {
  if (typeof err !== 'object' || err === null || !('writeErrors' in err)) return [];
  const { writeErrors } = err;
  const list: unknown[] = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  return list.filter((w): w is BulkWriteEntry => typeof w === 'object' && w !== null && 'index' in w && typeof w.index === 'number');
}
