/**
 * Runs calls that share a key one after another within one app. Writers of one append-only
 * chain (an organization's ledger, its quota window) from one app would only race each other
 * for the next sequence number, and every lost race costs re-reads. Keys are namespaced by
 * their users (`ledger:<org>`, `deliveries:<org>`, `search:<org>`). The root builds one
 * (core/deps.ts `Deps.turns`); two apps in one process each keep their own, and the store still
 * settles any race between them.
 */
export class Turns {
  private readonly queues = new Map<string, Promise<void>>();

  inTurn<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return run;
  }
}
