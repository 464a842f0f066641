/**
 * Store commands sent together (group commit): while one batch is on its way to the store, the
 * items asked for meanwhile wait and then go as one command. An unloaded process sends each item
 * at once (after the current synchronous step, so the items one step asks for together share a
 * command); under load a batch holds what arrived during one round trip, so the store's
 * per-command cost is paid once per round trip instead of once per item.
 */
export class GroupCommit<Item, Result> {
  private queue: Array<{ item: Item; settle: (result: Result) => void; fail: (err: unknown) => void }> = [];
  private sending = false;
  private lastSentAt = -Infinity;

  /**
   * `sendBatch` writes a batch in one command and answers each item's result in order.
   * `spacingMs`: a command goes at least this long after the previous one started, so that under
   * load the items of several round trips share it (the store's cost is mostly per command, not
   * per item); an item asked for when none went out for that long goes at once.
   */
  constructor(
    private readonly sendBatch: (items: Item[]) => Promise<Result[]>,
    private readonly spacingMs = 0,
    private readonly clock: () => number = () => performance.now(),
    /** Items per command; more wait for the next one (a command holds the local store's writer for all of its items). */
    private readonly maxItems = Infinity,
  ) {}

  /** The item's result once its batch is written; a failed command fails each item it carried. */
  submit(item: Item): Promise<Result> {
    return new Promise((settle, fail) => {
      this.queue.push({ item, settle, fail });
      if (this.sending) return;
      this.sending = true;
      queueMicrotask(() => void this.send());
    });
  }

  private async send(): Promise<void> {
    while (this.queue.length) {
      const wait = this.lastSentAt + this.spacingMs - this.clock();
      // Unreferenced: a waiting batch never keeps a stopping process alive (what waits is either
      // never awaited, or awaited by a request whose server keeps the process running).
      if (wait > 0) await new Promise((r) => setTimeout(r, wait).unref());
      this.lastSentAt = this.clock();
      const batch = this.queue.splice(0, this.maxItems);
      try {
        const results = await this.sendBatch(batch.map((b) => b.item));
        batch.forEach((b, i) => b.settle(results[i]));
      } catch (err) {
        for (const b of batch) b.fail(err);
      }
    }
    this.sending = false;
  }
}
