import { lazyLru } from '../store/lazyLru';
import type { Logger } from '../observability/logger';
import { GroupCommit } from '../store/groupCommit';
import type { KeysStores } from './store';

/** How stale a key's `last_used_at` may be: it is written at most once per key per this period. */
export const KEY_USE_PERIOD_MS = 60_000;

/** How many keys a process remembers its last write for; one forgotten costs one extra write. */
const REMEMBERED_KEYS = 100_000;

/**
 * Stores that a key was used at `at`, unless the store already holds a use within the period
 * (so several replicas, each writing once per period, still change the key once per period).
 * Resolves once written.
 */
export type KeyUseWrite = (keyId: string, at: Date) => Promise<unknown>;

/** The key-use write on the root's stores, one command per use; resolves to whether the key's document changed. */
export function keyUseWrite(stores: KeysStores): (keyId: string, at: Date) => Promise<boolean> {
  return (keyId, at) => stores.keys.recordKeyUse(keyId, at, KEY_USE_PERIOD_MS);
}

/**
 * How long after one key-use command the next may go: the uses noted meanwhile share it. A use
 * is written at most once a minute and never awaited by a request, so the wait costs nothing a
 * caller sees, and a quick store (whose command would be answered before the next key's first
 * use) still gets a few commands when many tenants begin, not one per key.
 */
export const KEY_USE_SPACING_MS = 50;

/**
 * Keys per key-use command. The local store has one writer, and an update command holds it for
 * all of its statements while admission's inserts wait; when every tenant starts together, every
 * key's first use is due at once, and one command for all of them would be one long stall in
 * their first second. A few keys per command, one command per spacing, spread it.
 */
export const KEY_USES_PER_WRITE = 2;

/**
 * The key-use writes an app makes, sent together (GroupCommit) at most one command per
 * `spacingMs`, at most KEY_USES_PER_WRITE keys each. After a start, or when many tenants begin at once, every key's first use is a
 * write, and the local store's cost is per command: one each would queue that many updates ahead
 * of the requests' own reads and admission inserts.
 */
export function gatheredKeyUseWrite(stores: KeysStores, spacingMs = KEY_USE_SPACING_MS, clock?: () => number): KeyUseWrite {
  const commits = new GroupCommit<{ keyId: string; at: Date }, void>(
    async (uses) => {
      await stores.keys.recordKeyUses(uses, KEY_USE_PERIOD_MS);
      return uses.map(() => undefined);
    },
    spacingMs,
    clock,
    KEY_USES_PER_WRITE,
  );
  return (keyId, at) => commits.submit({ keyId, at });
}

/**
 * Keeps each key's `last_used_at` without a store write per request: a process writes a key's
 * use at most once per KEY_USE_PERIOD_MS (it notes when it last wrote each key), and never on
 * the request's path: the write is started, not awaited, and its failure is logged, never the
 * request's. What this remembers is when it wrote, never whether a key is valid: every request
 * is still verified against the store, so a revocation is seen on the very next request.
 */
export class KeyUseRecorder {
  private readonly lastWritten = lazyLru<string, number>({ max: REMEMBERED_KEYS });

  constructor(
    private readonly logger: Logger,
    private readonly write: KeyUseWrite,
    private readonly now: () => number = Date.now,
  ) {}

  /** Notes a verified use of the key; returns the pending write when one was started (tests wait on it), else undefined. */
  note(keyId: string): Promise<void> | undefined {
    const now = this.now();
    const last = this.lastWritten().get(keyId);
    if (last !== undefined && now - last < KEY_USE_PERIOD_MS && now >= last) return undefined;
    this.lastWritten().set(keyId, now);
    return this.write(keyId, new Date(now)).then(
      () => undefined,
      // One attempt per period even when it fails: a store in trouble gets no write per request.
      (err: unknown) => this.logger.warn({ err, key_id: keyId }, 'recording the last use of an API key failed'),
    );
  }
}
