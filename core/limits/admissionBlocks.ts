/**
 * Admission in blocks, for limits an operator raised far above the defaults. At the default
 * 25 requests/s every admitted request takes its own slot in the store, which keeps the window
 * exact (exactly 25 admitted when 25 or more are offered). At 10,000/s one store write per
 * request would make the limiter the bottleneck, so a replica takes a block of slots with one
 * write and admits from it locally. The bound still holds on every replica together, because
 * blocks are the store's unique slots; what is lost is exactness from below: slots a replica
 * took but did not use in a second go unused, and in-flight slots a replica holds for a moment
 * after its last request. Small limits never use blocks.
 */

/** Request rates up to this are admitted one store slot per request (exact). */
export const EXACT_WINDOW_UP_TO = 100;
/** In-flight limits up to this are held one store lease per request (exact). */
export const EXACT_LEASES_UP_TO = 50;

/** Slots per store write in a strict window of `limit` requests per second. */
export function windowBlockSize(limit: number): number {
  return limit <= EXACT_WINDOW_UP_TO ? 1 : Math.ceil(limit / EXACT_WINDOW_UP_TO);
}

/** In-flight slots per store lease under an in-flight limit of `limit`. */
export function leaseBlockSize(limit: number): number {
  return limit <= EXACT_LEASES_UP_TO ? 1 : Math.ceil(limit / EXACT_LEASES_UP_TO);
}

/** How many blocks of `size` cover `limit` slots (the last may be smaller). */
export function blockCount(limit: number, size: number): number {
  return Math.ceil(limit / size);
}

/** Slots in block `index` of `limit` slots cut in blocks of `size`. */
export function blockCapacity(limit: number, size: number, index: number): number {
  return Math.max(0, Math.min(size, limit - index * size));
}

// ---- strict window, in blocks ----

export interface WindowBlock {
  scopeKey: string;
  second: number;
  index: number;
  size: number;
  limit: number;
  left: number;
  /** The block's slot in the store, named once by whoever took it (requestAdmission.ts). */
  slotId?: string;
}

/** A store write that takes block `index` of a scope's window for `second`, or finds it taken. */
export type TakeWindowBlock = (scopeKey: string, second: number, size: number, index: number) => Promise<boolean>;

/**
 * The window blocks this process holds, one per scope: requests are admitted from the current
 * block; when it is used up (or the second changed) one request takes the next block from the
 * store while the others wait for it.
 */
export class WindowBlockPool {
  private readonly held = new Map<string, WindowBlock>();
  private readonly taking = new Map<string, Promise<WindowBlock | undefined>>();
  /** Per scope and second: the first block index not known to be taken. */
  private readonly nextIndex = new Map<string, number>();
  private hintSecond = 0;

  constructor(private readonly take: TakeWindowBlock) {}

  /** One admission from the block held for `second`, without waiting; undefined when that needs the store (or the window is full). */
  admitNow(scopeKey: string, limit: number, second: number): { block: WindowBlock; count: number } | undefined {
    const b = this.held.get(scopeKey);
    if (!b || b.second !== second || b.limit !== limit || b.left <= 0) return undefined;
    b.left--;
    return { block: b, count: b.index * b.size + (blockCapacity(limit, b.size, b.index) - b.left) };
  }

  /** One admission from a held block, taking a new block when needed; undefined when the window is full. */
  async admit(scopeKey: string, limit: number, second: () => number): Promise<{ block: WindowBlock; count: number } | undefined> {
    const size = windowBlockSize(limit);
    for (let rounds = 0; rounds < 1000; rounds++) {
      const s = second();
      const held = this.admitNow(scopeKey, limit, s);
      if (held) return held;
      let pending = this.taking.get(scopeKey);
      if (!pending) {
        pending = this.takeNext(scopeKey, limit, size, s).finally(() => this.taking.delete(scopeKey));
        this.taking.set(scopeKey, pending);
      }
      const got = await pending;
      if (!got) {
        if (second() === s) return undefined;
      }
    }
    return undefined;
  }

  /** A request admitted from a block and refused later gives its slot back to the block. */
  giveBack(block: WindowBlock): void {
    if (this.held.get(block.scopeKey) === block) block.left++;
  }

  private async takeNext(scopeKey: string, limit: number, size: number, second: number): Promise<WindowBlock | undefined> {
    if (second !== this.hintSecond) {
      this.nextIndex.clear();
      this.hintSecond = second;
    }
    const hintKey = `${scopeKey}:${second}:${size}`;
    const count = blockCount(limit, size);
    for (let index = this.nextIndex.get(hintKey) ?? 0; index < count; index++) {
      const won = await this.take(scopeKey, second, size, index);
      this.nextIndex.set(hintKey, index + 1);
      if (won) {
        const capacity = blockCapacity(limit, size, index);
        const block: WindowBlock = { scopeKey, second, index, size, limit, left: capacity };
        this.held.set(scopeKey, block);
        return block;
      }
    }
    return undefined;
  }
}

// ---- in-flight leases, in blocks ----

export interface StoreLease {
  slotId: string;
  token: string;
}

export interface LeaseBlock {
  orgId: string;
  lease: StoreLease;
  capacity: number;
  inUse: number;
  expiresAt: number;
  linger?: ReturnType<typeof setTimeout>;
}

/** Takes one store lease standing for `blocks` places, held for `ttlMs` (the acquiring request's lease TTL). */
export type TakeLeaseBlock = (
  orgId: string,
  blocks: number,
  ttlMs: number,
  now: () => number,
) => Promise<{ admitted: true; lease: StoreLease; index: number; expiresAt: number } | { admitted: false; retryAfterSeconds: number }>;

/**
 * In-flight lease blocks this process holds per organization. A request takes a place in a held
 * block that has at least half its lease time left; a block whose last request finished is
 * kept a moment (`lingerMs`) for the next one, then given back to the store.
 */
export class LeaseBlockPool {
  private readonly pools = new Map<string, LeaseBlock[]>();
  private readonly taking = new Map<string, ReturnType<TakeLeaseBlock>>();

  constructor(
    private readonly take: TakeLeaseBlock,
    private readonly giveBackToStore: (lease: StoreLease) => void,
    private readonly lingerMs = 250,
  ) {}

  async acquire(
    orgId: string,
    limit: number,
    ttlMs: number,
    now: () => number,
  ): Promise<{ admitted: true; block: LeaseBlock } | { admitted: false; retryAfterSeconds: number }> {
    const size = leaseBlockSize(limit);
    for (let rounds = 0; rounds < 1000; rounds++) {
      const b = this.acquireNow(orgId, ttlMs, now());
      if (b) return { admitted: true, block: b };
      let pending = this.taking.get(orgId);
      if (!pending) {
        pending = this.take(orgId, blockCount(limit, size), ttlMs, now)
          .then((r) => {
            if (r.admitted) {
              const list = this.pools.get(orgId) ?? [];
              const block: LeaseBlock = { orgId, lease: r.lease, capacity: blockCapacity(limit, size, r.index), inUse: 0, expiresAt: r.expiresAt };
              list.push(block);
              this.pools.set(orgId, list);
              // The requests waiting for it may all find a place another block freed meanwhile;
              // unused, it goes back like an idle block instead of staying held until reused.
              this.lingerThenDrop(block);
            }
            return r;
          })
          .finally(() => this.taking.delete(orgId));
        this.taking.set(orgId, pending);
      }
      const r = await pending;
      if (!r.admitted) return r;
    }
    return { admitted: false, retryAfterSeconds: 1 };
  }

  /** A place in a block held with at least half its lease time left, without waiting; undefined when none has room. */
  acquireNow(orgId: string, ttlMs: number, t: number): LeaseBlock | undefined {
    const pool = this.pools.get(orgId);
    if (!pool) return undefined;
    for (const b of pool) {
      if (b.inUse >= b.capacity || b.expiresAt - t <= ttlMs / 2) continue;
      b.inUse++;
      if (b.linger) clearTimeout(b.linger);
      b.linger = undefined;
      return b;
    }
    return undefined;
  }

  /** In-flight places this process's requests use in an organization's blocks. */
  inUse(orgId: string): number {
    return (this.pools.get(orgId) ?? []).reduce((n, b) => n + b.inUse, 0);
  }

  release(block: LeaseBlock, now: number): void {
    block.inUse = Math.max(0, block.inUse - 1);
    if (block.inUse > 0) return;
    const stale = block.expiresAt <= now;
    if (stale || this.lingerMs <= 0) return this.drop(block);
    this.lingerThenDrop(block);
  }

  /** Keeps an idle block `lingerMs` for the next request (acquire cancels this), then gives it back. */
  private lingerThenDrop(block: LeaseBlock): void {
    if (block.linger) clearTimeout(block.linger);
    block.linger = setTimeout(() => {
      if (block.inUse === 0) this.drop(block);
    }, this.lingerMs);
    block.linger.unref?.();
  }

  /** Gives every idle block back to the store now (shutdown, tests). */
  releaseIdle(): void {
    for (const pool of this.pools.values()) for (const b of [...pool]) if (b.inUse === 0) this.drop(b);
  }

  held(orgId: string): LeaseBlock[] {
    return [...(this.pools.get(orgId) ?? [])];
  }

  private drop(block: LeaseBlock): void {
    if (block.linger) clearTimeout(block.linger);
    block.linger = undefined;
    const pool = this.pools.get(block.orgId);
    const i = pool?.indexOf(block) ?? -1;
    if (i < 0) return;
    pool!.splice(i, 1);
    if (pool!.length === 0) this.pools.delete(block.orgId);
    this.giveBackToStore(block.lease);
  }
}
