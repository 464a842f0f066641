import type { Collection, Document, OptionalUnlessRequiredId } from 'mongodb';
import { insertManyIgnoringDuplicates } from './inserts';

/**
 * Unique inserts into one collection, sent together (group commit): while one batch is on its
 * way to the store, the inserts asked for meanwhile wait and then go as one unordered bulk
 * insert. Each document is still its own unique insert, so "whoever inserts first wins" holds
 * exactly as with `insertOnce` (two equal `_id`s in one batch: the first wins, the second is a
 * duplicate); what changes is the number of store commands. An unloaded process sends each
 * request's inserts at once; under load a batch holds what arrived during one round
 * trip, so the store's per-command cost is paid once per round trip instead of once per insert.
 */
export class GroupedInserts<T extends Document> {
  private queue: Array<{ doc: OptionalUnlessRequiredId<T>; settle: (won: boolean) => void; fail: (err: unknown) => void }> = [];
  private sending = false;
  private lastSentAt = -Infinity;

  /**
   * `spacingMs`: a command goes at least this long after the previous one started, so that under
   * load the inserts of several round trips share it (the store's cost is mostly per command, not
   * per document); an insert asked for when none went out for that long goes at once.
   */
  constructor(
    private readonly collection: () => Collection<T>,
    private readonly spacingMs = 0,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** True when this call inserted `doc`, false when a document with its unique key exists. */
  insertOnce(doc: OptionalUnlessRequiredId<T>): Promise<boolean> {
    return new Promise((settle, fail) => {
      this.queue.push({ doc, settle, fail });
      if (this.sending) return;
      this.sending = true;
      // Sent after the current synchronous step, so the inserts one step asks for together (a
      // request's window slot and its lease) share a command.
      queueMicrotask(() => void this.send());
    });
  }

  private async send(): Promise<void> {
    while (this.queue.length) {
      const wait = this.lastSentAt + this.spacingMs - this.clock();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      this.lastSentAt = this.clock();
      const batch = this.queue.splice(0);
      try {
        const { duplicates } = await insertManyIgnoringDuplicates(
          this.collection(),
          batch.map((b) => b.doc),
        );
        const lost = new Set(duplicates);
        batch.forEach((b, i) => b.settle(!lost.has(i)));
      } catch (err) {
        for (const b of batch) b.fail(err);
      }
    }
    this.sending = false;
  }
}
