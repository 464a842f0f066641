import { GatheredReads } from '../../core/store/gatheredReads';

function recordingStore(docs: Record<string, string>) {
  const finds: string[][] = [];
  const reads = new GatheredReads<string>(async (keys) => {
    finds.push([...keys]);
    return new Map(keys.filter((k) => k in docs).map((k) => [k, docs[k]]));
  });
  return { finds, reads };
}

describe('gathered reads', () => {
  test('refreshes asked for within the gathering time share one find; each caller gets its own document or null', async () => {
    // The gathering timer and the clock are jest's: 5 ms pass exactly, however busy the machine.
    jest.useFakeTimers();
    try {
      const { finds, reads } = recordingStore({ a: 'A', b: 'B' });
      const first = reads.read('a', 30);
      jest.advanceTimersByTime(5);
      const rest = [reads.read('b', 30), reads.read('missing', 30), reads.read('a', 30)];
      expect(finds).toEqual([]);
      await jest.advanceTimersByTimeAsync(25);
      expect(await Promise.all([first, ...rest])).toEqual(['A', 'B', null, 'A']);
      expect(finds).toEqual([['a', 'b', 'missing']]);
    } finally {
      jest.useRealTimers();
    }
  });

  test('a read a request waits for goes at once and takes the waiting refreshes along', async () => {
    const { finds, reads } = recordingStore({ a: 'A', b: 'B' });
    const refresh = reads.read('a', 10_000);
    const started = performance.now();
    expect(await reads.read('b', 0)).toBe('B');
    expect(await refresh).toBe('A');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(finds).toEqual([['a', 'b']]);
  });

  test('a failed find fails every read of its batch, and later reads go on', async () => {
    let fail = true;
    const reads = new GatheredReads<string>(async (keys) => {
      if (fail) throw new Error('store down');
      return new Map(keys.map((k) => [k, k.toUpperCase()]));
    });
    await expect(Promise.all([reads.read('a', 0), reads.read('b', 0)])).rejects.toThrow('store down');
    fail = false;
    expect(await reads.read('c', 0)).toBe('C');
  });

  test('with a spacing, misses soon after a find share the next one; after a quiet spell a miss goes at once', async () => {
    // jest's timers and clock: the spacing passes exactly, however busy the machine.
    jest.useFakeTimers();
    try {
      const finds: string[][] = [];
      const reads = new GatheredReads<string>(
        async (keys) => {
          finds.push([...keys]);
          return new Map(keys.map((k) => [k, k.toUpperCase()]));
        },
        () => Date.now(),
        2,
      );
      const first = reads.read('a', 0);
      await jest.advanceTimersByTimeAsync(0);
      expect(finds).toEqual([['a']]);
      // Every tenant's first request, one after another within the spacing.
      const burst = [reads.read('b', 0)];
      jest.advanceTimersByTime(1);
      burst.push(reads.read('c', 0));
      expect(finds).toEqual([['a']]);
      await jest.advanceTimersByTimeAsync(1);
      expect(await Promise.all([first, ...burst])).toEqual(['A', 'B', 'C']);
      expect(finds).toEqual([['a'], ['b', 'c']]);
      jest.advanceTimersByTime(100);
      const later = reads.read('d', 0);
      await jest.advanceTimersByTimeAsync(0);
      expect(await later).toBe('D');
      expect(finds).toEqual([['a'], ['b', 'c'], ['d']]);
    } finally {
      jest.useRealTimers();
    }
  });
});
