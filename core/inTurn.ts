/**
 * Runs calls that share a key one after another within this process. Writers of one
 * append-only chain (an organization's ledger, its quota window) from one process would only
 * race each other for the next sequence number, and every lost race costs re-reads. Keys are
 * namespaced by their users (`ledger:<org>`, `deliveries:<org>`, `search:<org>`).
 */
const queues = new Map<string, Promise<void>>();

export function inTurn<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return run;
}
