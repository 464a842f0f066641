/** Keys per find: a bounded `$in` keeps each command small on any store. */
const MAX_KEYS_PER_READ = 500;

type Waiter<V> = { resolve: (value: V | null) => void; reject: (err: unknown) => void };

/**
 * Point reads by one unique key, gathered: the reads asked for until the earliest of them is due
 * go to the store as one `$in` find (`readMany`), and each caller gets its own document or null.
 * A read that no request waits for (a read cache's refresh ahead) can wait a few milliseconds for
 * company; a read a request waits for (gather 0) goes after the current turn of the event loop,
 * taking along whatever is waiting. Under many tenants this turns one find per tenant and TTL into
 * a few finds per TTL.
 */
export class GatheredReads<V> {
  private waiting = new Map<string, Waiter<V>[]>();
  private dueAt = Infinity;
  private timeout: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private lastSentAt = -Infinity;

  /**
   * `spacingMs`: a read a request waits for goes at least this long after the previous find, so
   * that a burst of misses (every tenant's first request after a start) shares a few finds; after
   * a quiet spell it goes at once.
   */
  constructor(
    private readonly readMany: (keys: string[]) => Promise<Map<string, V>>,
    private readonly clock: () => number = () => performance.now(),
    private readonly spacingMs = 0,
  ) {}

  read(key: string, gatherMs: number): Promise<V | null> {
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(key);
      if (list) list.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      this.sendWithin(Math.max(0, gatherMs));
    });
  }

  private sendWithin(requested: number): void {
    const now = this.clock();
    const gatherMs = Math.max(requested, this.lastSentAt + this.spacingMs - now);
    const due = now + gatherMs;
    if (due >= this.dueAt) return;
    this.dueAt = due;
    clearTimeout(this.timeout);
    if (this.immediate) clearImmediate(this.immediate);
    this.timeout = this.immediate = undefined;
    if (gatherMs === 0) this.immediate = setImmediate(() => this.send());
    // Unreferenced: a pending refresh alone does not keep a process alive.
    else this.timeout = setTimeout(() => this.send(), gatherMs).unref();
  }

  private send(): void {
    this.lastSentAt = this.clock();
    this.timeout = this.immediate = undefined;
    this.dueAt = Infinity;
    const batch = this.waiting;
    this.waiting = new Map();
    const keys = [...batch.keys()];
    for (let i = 0; i < keys.length; i += MAX_KEYS_PER_READ) {
      const part = keys.slice(i, i + MAX_KEYS_PER_READ);
      this.readMany(part).then(
        (found) => {
          for (const key of part) for (const w of batch.get(key)!) w.resolve(found.get(key) ?? null);
        },
        (err: unknown) => {
          for (const key of part) for (const w of batch.get(key)!) w.reject(err);
        },
      );
    }
  }
}
