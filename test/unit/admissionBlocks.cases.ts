import {
  blockCapacity,
  blockCount,
  leaseBlockSize,
  LeaseBlockPool,
  windowBlockSize,
  WindowBlockPool,
  type StoreLease,
} from '../../core/limits/admissionBlocks';
import { ReadCache } from '../../core/store/readCache';

describe('block sizes', () => {
  it('keeps default and small limits exact: one slot per store write', () => {
    expect(windowBlockSize(25)).toBe(1);
    expect(windowBlockSize(100)).toBe(1);
    expect(leaseBlockSize(25)).toBe(1);
    expect(leaseBlockSize(50)).toBe(1);
  });

  it('cuts raised limits into about a hundred window blocks and fifty lease blocks', () => {
    expect(windowBlockSize(101)).toBe(2);
    expect(windowBlockSize(100_000)).toBe(1000);
    expect(leaseBlockSize(2000)).toBe(40);
  });

  it('covers the limit exactly, the last block taking the remainder', () => {
    for (const limit of [101, 250, 999, 12_345]) {
      const size = windowBlockSize(limit);
      const n = blockCount(limit, size);
      const total = Array.from({ length: n }, (_, i) => blockCapacity(limit, size, i)).reduce((a, b) => a + b, 0);
      expect(total).toBe(limit);
      expect(blockCapacity(limit, size, n)).toBe(0);
    }
  });
});

/** A fake store of unique slot ids: what the real one guarantees (one insert per id wins). */
function uniqueSlots() {
  const taken = new Set<string>();
  let writes = 0;
  return {
    taken,
    get writes() {
      return writes;
    },
    take: async (id: string) => {
      writes++;
      await new Promise((r) => setImmediate(r));
      if (taken.has(id)) return false;
      taken.add(id);
      return true;
    },
  };
}

describe('WindowBlockPool', () => {
  it('admits at most the limit across two replicas sharing the store, with one write per block', async () => {
    const store = uniqueSlots();
    const replicas = [0, 1].map(() => new WindowBlockPool((scope, second, size, index) => store.take(`${scope}:${second}:${size}:${index}`)));
    const limit = 1000;
    const results = await Promise.all(Array.from({ length: 1500 }, (_, i) => replicas[i % 2].admit('req:org', limit, () => 7)));
    const admitted = results.filter(Boolean).length;
    expect(admitted).toBeLessThanOrEqual(limit);
    // Each replica can leave at most one block partly unused.
    expect(admitted).toBeGreaterThanOrEqual(limit - 2 * windowBlockSize(limit));
    expect(store.taken.size).toBeLessThanOrEqual(blockCount(limit, windowBlockSize(limit)));
  });

  it('opens a fresh window in the next second', async () => {
    const store = uniqueSlots();
    const pool = new WindowBlockPool((scope, second, size, index) => store.take(`${scope}:${second}:${size}:${index}`));
    let second = 1;
    const first = await Promise.all(Array.from({ length: 250 }, () => pool.admit('s', 200, () => second)));
    expect(first.filter(Boolean)).toHaveLength(200);
    second = 2;
    expect(await pool.admit('s', 200, () => second)).toBeDefined();
  });

  it("returns a refused request's slot to its block", async () => {
    const store = uniqueSlots();
    const pool = new WindowBlockPool((scope, second, size, index) => store.take(`${scope}:${second}:${size}:${index}`));
    const all = await Promise.all(Array.from({ length: 202 }, () => pool.admit('s', 202, () => 3)));
    expect(all.every(Boolean)).toBe(true);
    expect(await pool.admit('s', 202, () => 3)).toBeUndefined();
    pool.giveBack(all[all.length - 1]!.block);
    expect(await pool.admit('s', 202, () => 3)).toBeDefined();
  });
});

describe('WindowBlockPool.admitNow', () => {
  it('admits from the block held for the second without a store write, counting on, and leaves the rest to admit', async () => {
    const store = uniqueSlots();
    const pool = new WindowBlockPool((scope, second, size, index) => store.take(`${scope}:${second}:${size}:${index}`));
    // limit 202: blocks of 3 slots.
    expect(pool.admitNow('s', 202, 5)).toBeUndefined();
    expect((await pool.admit('s', 202, () => 5))?.count).toBe(1);
    const writes = store.writes;
    expect(pool.admitNow('s', 202, 5)?.count).toBe(2);
    expect(pool.admitNow('s', 202, 5)?.count).toBe(3);
    expect(store.writes).toBe(writes);
    // The block is used up; another second's window and another limit are not this block's.
    expect(pool.admitNow('s', 202, 5)).toBeUndefined();
    expect(pool.admitNow('s', 202, 6)).toBeUndefined();
    expect((await pool.admit('s', 202, () => 5))?.count).toBe(4);
    expect(pool.admitNow('s', 303, 5)).toBeUndefined();
  });
});

describe('LeaseBlockPool', () => {
  /** Linger timers on jest's clock, advanced by the test; the store's own turns (setImmediate) stay real. */
  function useLingerClock() {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
  }
  afterEach(() => jest.useRealTimers());

  function leaseStore() {
    const slots = new Map<number, string>();
    let n = 0;
    const store = {
      slots,
      expiresAt: 60_000,
      take: async (_org: string, blocks: number) => {
        await new Promise((r) => setImmediate(r));
        for (let i = 0; i < blocks; i++) {
          if (!slots.has(i)) {
            const token = `t${n++}`;
            slots.set(i, token);
            return { admitted: true as const, lease: { slotId: `l:${i}`, token }, index: i, expiresAt: store.expiresAt };
          }
        }
        return { admitted: false as const, retryAfterSeconds: 1 };
      },
      giveBack: (lease: StoreLease) => {
        for (const [i, t] of slots) if (t === lease.token) slots.delete(i);
      },
    };
    return store;
  }

  it('never holds more places than the limit and gives idle blocks back', async () => {
    const store = leaseStore();
    const pool = new LeaseBlockPool(store.take, store.giveBack, 0);
    const limit = 200;
    const got = await Promise.all(Array.from({ length: 300 }, () => pool.acquire('org', limit, 60_000, () => 0)));
    const admitted = got.filter((g) => g.admitted);
    expect(admitted).toHaveLength(limit);
    expect(store.slots.size).toBe(blockCount(limit, leaseBlockSize(limit)));
    for (const g of admitted) if (g.admitted) pool.release(g.block, 0);
    expect(store.slots.size).toBe(0);
  });

  it('keeps a block for the next request while it lingers, then gives it back', async () => {
    useLingerClock();
    const store = leaseStore();
    const pool = new LeaseBlockPool(store.take, store.giveBack, 20);
    const a = await pool.acquire('org', 100, 60_000, () => 0);
    if (!a.admitted) throw new Error('refused');
    pool.release(a.block, 0);
    const b = await pool.acquire('org', 100, 60_000, () => 0);
    if (!b.admitted) throw new Error('refused');
    expect(b.block).toBe(a.block);
    pool.release(b.block, 0);
    // The block's 20 ms linger is a timer on jest's clock.
    await jest.advanceTimersByTimeAsync(19);
    expect(store.slots.size).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(store.slots.size).toBe(0);
  });

  it('gives back a block that the requests waiting for it did not need (another block freed a place meanwhile)', async () => {
    useLingerClock();
    const store = leaseStore();
    let gate: Promise<void> = Promise.resolve();
    const pool = new LeaseBlockPool((org, blocks) => gate.then(() => store.take(org, blocks)), store.giveBack, 20);
    // limit 100: blocks of 2 places. Two requests fill the first block.
    const a1 = await pool.acquire('org', 100, 60_000, () => 0);
    const a2 = await pool.acquire('org', 100, 60_000, () => 0);
    if (!a1.admitted || !a2.admitted) throw new Error('refused');
    expect(a2.block).toBe(a1.block);
    // A third request needs a second block; while the store takes it, the first block frees a place.
    let open!: () => void;
    gate = new Promise<void>((r) => (open = r));
    const a3p = pool.acquire('org', 100, 60_000, () => 0);
    await new Promise((r) => setImmediate(r));
    pool.release(a1.block, 0);
    open();
    const a3 = await a3p;
    if (!a3.admitted) throw new Error('refused');
    expect(a3.block).toBe(a1.block);
    expect(store.slots.size).toBe(2);
    pool.release(a2.block, 0);
    pool.release(a3.block, 0);
    // Both blocks' 20 ms lingers are timers on jest's clock.
    await jest.advanceTimersByTimeAsync(20);
    expect(store.slots.size).toBe(0);
  });

  it('takes a place in a held block without waiting (acquireNow), and none without a block with room', async () => {
    const store = leaseStore();
    const pool = new LeaseBlockPool(store.take, store.giveBack, 1000);
    expect(pool.acquireNow('org', 60_000, 0)).toBeUndefined();
    // limit 100: blocks of 2 places.
    const a = await pool.acquire('org', 100, 60_000, () => 0);
    if (!a.admitted) throw new Error('refused');
    expect(pool.acquireNow('org', 60_000, 0)).toBe(a.block);
    expect(pool.inUse('org')).toBe(2);
    expect(pool.acquireNow('org', 60_000, 0)).toBeUndefined();
    pool.release(a.block, 0);
    // Past half its lease time a block takes no new request, now or later.
    expect(pool.acquireNow('org', 60_000, 30_000)).toBeUndefined();
    expect(pool.acquireNow('org', 60_000, 0)).toBe(a.block);
    expect(store.slots.size).toBe(1);
    pool.release(a.block, 0);
    pool.release(a.block, 0);
    pool.releaseIdle();
  });

  it('puts no new request in a block with less than half its lease time left', async () => {
    const store = leaseStore();
    const pool = new LeaseBlockPool(store.take, store.giveBack, 1000);
    const a = await pool.acquire('org', 100, 60_000, () => 0);
    store.expiresAt = 105_000;
    const b = await pool.acquire('org', 100, 60_000, () => 45_000);
    if (!a.admitted || !b.admitted) throw new Error('refused');
    expect(b.block).not.toBe(a.block);
    pool.releaseIdle();
  });
});

describe('ReadCache', () => {
  it('serves a read for the TTL counted from when the read started, and shares concurrent misses', async () => {
    let t = 0;
    let reads = 0;
    const cache = new ReadCache<number>(100, () => t);
    const read = async () => {
      reads++;
      t += 400; // the read itself takes 400 ms
      return reads;
    };
    const [a, b] = await Promise.all([cache.get('k', 1000, read), cache.get('k', 1000, read)]);
    expect([a, b, reads]).toEqual([1, 1, 1]);
    t = 999;
    expect(await cache.get('k', 1000, read)).toBe(1);
    t = 1001;
    expect(await cache.get('k', 1000, read)).toBe(2);
  });

  it('refreshes an entry in steady use ahead of its expiry: no request waits, no value is older than the TTL', async () => {
    let t = 1; // lru-cache takes a start time of 0 for "no TTL"
    let reads = 0;
    const cache = new ReadCache<{ n: number; readAt: number }>(100, () => t);
    const read = async () => ({ n: ++reads, readAt: t });
    await cache.get('k', 1000, read);
    // A request every 100 ms for 5 s: each is answered by a read that started before it (it did
    // not wait for one), never more than the TTL before it.
    for (t = 100; t <= 5000; t += 100) {
      const v = await cache.get('k', 1000, read);
      expect(v.readAt).toBeLessThan(t);
      expect(t - v.readAt).toBeLessThanOrEqual(1000);
    }
    // About one read per three quarters of the TTL, not one per request.
    expect(reads).toBeGreaterThanOrEqual(6);
    expect(reads).toBeLessThanOrEqual(8);
  });

  it('spreads the refreshes of entries read together instead of re-reading them all at once', async () => {
    let t = 1;
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const readsAt = new Map<number, number>();
    const cache = new ReadCache<number>(100, () => t, random);
    const read = async () => {
      readsAt.set(t, (readsAt.get(t) ?? 0) + 1);
      return t;
    };
    const keys = Array.from({ length: 50 }, (_, i) => `org${i}`);
    await Promise.all(keys.map((k) => cache.get(k, 1000, read)));
    // Every key is asked for every 10 ms for 5 s, as under steady load.
    for (t = 10; t <= 5000; t += 10) await Promise.all(keys.map((k) => cache.get(k, 1000, read)));
    const refreshBursts = [...readsAt.entries()].filter(([at]) => at > 1).map(([, n]) => n);
    // Each key is re-read about once per 0.72 TTL, never all 50 in the same moment.
    expect(refreshBursts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(50 * 5);
    expect(Math.max(...refreshBursts)).toBeLessThanOrEqual(12);
  });

  it("holds a value read elsewhere for what is left of the TTL from that read's start, never past it", async () => {
    let t = 1000;
    let reads = 0;
    const cache = new ReadCache<string>(100, () => t);
    const read = async () => `read ${++reads}`;
    // Offered 300 ms after its read started: held 700 ms more, then read again.
    cache.offer('k', 'offered', 1000, 700);
    t = 1699;
    expect(await cache.get('k', 1000, read)).toBe('offered');
    t = 1701;
    expect(await cache.get('k', 1000, read)).toBe('read 1');
    // An older read does not replace a fresher entry; one whose TTL is over is not kept at all.
    cache.offer('k', 'older', 1000, 1500);
    expect(await cache.get('k', 1000, read)).toBe('read 1');
    cache.offer('gone', 'stale', 1000, 0);
    expect(await cache.get('gone', 1000, read)).toBe('read 2');
    // With the TTL 0 nothing is held.
    cache.offer('off', 'offered', 0, t);
    expect(await cache.get('off', 0, read)).toBe('read 3');
  });

  it("leaves a key alone while a read of it is under way: that read's answer is what is kept", async () => {
    let release: (v: string) => void = () => undefined;
    const cache = new ReadCache<string>(100, () => 1);
    const pending = cache.get('k', 1000, () => new Promise<string>((resolve) => (release = resolve)));
    cache.offer('k', 'offered', 1000, 1);
    release('read');
    expect(await pending).toBe('read');
    expect(await cache.get('k', 1000, async () => 'again')).toBe('read');
  });

  it('reads every time when the TTL is 0, and forgets an invalidated key', async () => {
    let reads = 0;
    const off = new ReadCache<number>();
    await off.get('k', 0, async () => ++reads);
    await off.get('k', 0, async () => ++reads);
    expect(reads).toBe(2);
    const on = new ReadCache<number>();
    await on.get('k', 1000, async () => ++reads);
    on.invalidate('k');
    expect(await on.get('k', 1000, async () => ++reads)).toBe(4);
  });
});
