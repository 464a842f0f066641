import type { ApiKeyRecord } from '../../core/keys/store';
import {
  keepNewKeysReady,
  newKeyReadInterval,
  newKeysSince,
  NEW_KEY_READ_MIN_INTERVAL_MS,
  NEW_KEY_WINDOW_MS,
  NEW_KEYS_PER_READ,
  readNewKeys,
} from '../../core/keys/newKeys';

const key = (n: number) => ({ _id: `key_${n}`, hash: `hash_${n}` }) as ApiKeyRecord;

test('keys are new for a minute after their creation, and read again while the last read still holds them', () => {
  expect(newKeysSince(1_000_000).getTime()).toBe(1_000_000 - NEW_KEY_WINDOW_MS);
  expect(NEW_KEY_WINDOW_MS).toBe(60_000);
  expect(newKeyReadInterval(1000)).toBe(500);
  expect(newKeyReadInterval(4000)).toBe(2000);
  // At most twice a second, whatever READ_CACHE_MS: a replica's background finds stay bounded.
  expect(newKeyReadInterval(100)).toBe(NEW_KEY_READ_MIN_INTERVAL_MS);
  expect(newKeyReadInterval(1)).toBe(NEW_KEY_READ_MIN_INTERVAL_MS);
  expect(NEW_KEY_READ_MIN_INTERVAL_MS).toBe(500);
});

test('a read offers the keys it found, timed from its start, and asks for the window and the bound', async () => {
  let t = 10;
  const asked: Array<[Date, number]> = [];
  const offered: Array<[string[], number, number]> = [];
  const n = await readNewKeys(
    {
      unusedKeysCreatedSince: async (since, limit) => {
        asked.push([since, limit]);
        t += 40; // the find takes 40 ms
        return [key(1), key(2)];
      },
    },
    { offer: (keys, ttl, startedAt) => offered.push([keys.map((k) => k._id), ttl, startedAt]) },
    1000,
    () => 5_000_000,
    () => t,
  );
  expect(n).toBe(2);
  expect(asked).toEqual([[new Date(5_000_000 - NEW_KEY_WINDOW_MS), NEW_KEYS_PER_READ]]);
  // The keys are held from when the find started, not from when it answered.
  expect(offered).toEqual([[['key_1', 'key_2'], 1000, 10]]);
});

test('a failed read offers nothing and does not throw: the keys are then read on their first use', async () => {
  const offered: unknown[] = [];
  const n = await readNewKeys(
    { unusedKeysCreatedSince: () => Promise.reject(new Error('store down')) },
    { offer: (keys) => offered.push(keys) },
    1000,
    () => 0,
    () => 0,
  );
  expect(n).toBe(0);
  expect(offered).toEqual([[]]);
});

describe('kept ready', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reads at once and every half of READ_CACHE_MS, one read at a time, until stopped', async () => {
    let reads = 0;
    let finish: () => void = () => undefined;
    const store = {
      unusedKeysCreatedSince: () => {
        reads++;
        return new Promise<ApiKeyRecord[]>((resolve) => (finish = () => resolve([key(reads)])));
      },
    };
    const kept = keepNewKeysReady(
      store,
      { offer: () => undefined },
      1000,
      () => 0,
      () => 0,
    );
    expect(reads).toBe(1);
    // The first read is still under way: the tick skips.
    await jest.advanceTimersByTimeAsync(500);
    expect(reads).toBe(1);
    finish();
    await jest.advanceTimersByTimeAsync(500);
    expect(reads).toBe(2);
    finish();
    kept.stop();
    await jest.advanceTimersByTimeAsync(5000);
    expect(reads).toBe(2);
  });

  it('does nothing when READ_CACHE_MS is 0: every request reads its key', async () => {
    let reads = 0;
    const kept = keepNewKeysReady({ unusedKeysCreatedSince: async () => (reads++, []) }, { offer: () => undefined }, 0, () => 0);
    await jest.advanceTimersByTimeAsync(5000);
    kept.stop();
    expect(reads).toBe(0);
  });
});
