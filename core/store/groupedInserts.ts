import type { Collection, Document, OptionalUnlessRequiredId } from 'mongodb';
import { GroupCommit } from './groupCommit';
import { insertManyIgnoringDuplicates } from './inserts';

/**
 * Unique inserts into one collection, sent together (GroupCommit) as one unordered bulk insert.
 * Each document is still its own unique insert, so "whoever inserts first wins" holds exactly as
 * with a single insert (two equal `_id`s in one batch: the first wins, the second is a
 * duplicate); what changes is the number of store commands.
 */
export class GroupedInserts<T extends Document> {
  private readonly commits: GroupCommit<OptionalUnlessRequiredId<T>, boolean>;

  /** `spacingMs`: see GroupCommit. */
  constructor(collection: () => Collection<T>, spacingMs = 0, clock?: () => number) {
    this.commits = new GroupCommit(
      async (docs) => {
        const { duplicates } = await insertManyIgnoringDuplicates(collection(), docs);
        const lost = new Set(duplicates);
        return docs.map((_, i) => !lost.has(i));
      },
      spacingMs,
      clock,
    );
  }

  /** True when this call inserted `doc`, false when a document with its unique key exists. */
  insertOnce(doc: OptionalUnlessRequiredId<T>): Promise<boolean> {
    return this.commits.submit(doc);
  }
}
