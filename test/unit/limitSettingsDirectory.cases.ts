import {
  directoryAnswer,
  directoryTickMs,
  LimitSettingsDirectory,
  refreshDue,
  RELOAD_EVERY_MS,
  vouchedSnapshot,
  type DirectorySnapshot,
} from '../../core/limits/limitSettingsDirectory';

const TTL = 1000;
const snapshot = (orgIds: string[], mark: string | null, checkedAt: number, loadedAt = checkedAt): DirectorySnapshot => ({
  orgIds: new Set(orgIds),
  mark,
  checkedAt,
  loadedAt,
});

describe('what a directory snapshot says', () => {
  test('an organization it does not list is at the defaults while the snapshot is younger than READ_CACHE_MS; a listed one is read', () => {
    const s = snapshot(['org_own'], 'm1', 5000);
    expect(directoryAnswer(s, 'org_new', 5000, TTL)).toBe('defaults');
    expect(directoryAnswer(s, 'org_new', 5999, TTL)).toBe('defaults');
    expect(directoryAnswer(s, 'org_own', 5999, TTL)).toBe('own');
  });

  test('stale from READ_CACHE_MS after its check began, and never known without a snapshot or with READ_CACHE_MS 0', () => {
    const s = snapshot([], 'm1', 5000);
    expect(directoryAnswer(s, 'org_new', 6000, TTL)).toBe('unknown');
    expect(directoryAnswer(undefined, 'org_new', 5000, TTL)).toBe('unknown');
    expect(directoryAnswer(s, 'org_new', 5000, 0)).toBe('unknown');
  });

  test('a snapshot is checked again from half of READ_CACHE_MS on', () => {
    const s = snapshot([], 'm1', 5000);
    expect(refreshDue(s, 5499, TTL)).toBe(false);
    expect(refreshDue(s, 5500, TTL)).toBe(true);
    expect(refreshDue(undefined, 0, TTL)).toBe(true);
  });

  test('an unchanged mark vouches for the list from the mark read on; a changed one, or a list older than the reload time, does not', () => {
    const s = snapshot(['org_own'], 'm1', 5000);
    expect(vouchedSnapshot(s, 'm1', 5600)).toEqual(snapshot(['org_own'], 'm1', 5600, 5000));
    expect(vouchedSnapshot(s, 'm2', 5600)).toBeUndefined();
    expect(vouchedSnapshot(s, null, 5600)).toBeUndefined();
    expect(vouchedSnapshot(snapshot([], null, 5000), null, 5600)?.checkedAt).toBe(5600);
    expect(vouchedSnapshot(s, 'm1', 5000 + RELOAD_EVERY_MS)).toBeUndefined();
    expect(vouchedSnapshot(undefined, 'm1', 5600)).toBeUndefined();
  });
});

/** A store port that counts its reads and answers when the test says. */
function fakeStore(orgIds: string[], mark: string | null) {
  const state = { orgIds, mark, markReads: 0, listReads: 0, failing: false };
  return {
    state,
    port: {
      limitSettingsMark: async () => {
        state.markReads++;
        if (state.failing) throw new Error('store unavailable');
        return state.mark;
      },
      organizationsWithLimitSettings: async () => {
        state.listReads++;
        return [...state.orgIds];
      },
    },
  };
}

describe('one app’s directory', () => {
  let t = 0;
  const clock = () => t;
  beforeEach(() => {
    t = 10_000;
  });

  test('its first answer waits for one check (the mark, then the list), shared by every organization asking meanwhile', async () => {
    const { state, port } = fakeStore(['org_own'], 'm1');
    const directory = new LimitSettingsDirectory(port, clock);
    const answers = await Promise.all(['org_new', 'org_own', 'org_other'].map((org) => directory.atDefaults(org, TTL)));
    expect(answers).toEqual([true, false, true]);
    expect(state).toMatchObject({ markReads: 1, listReads: 1 });
  });

  test('while fresh it answers without the store, and from half of READ_CACHE_MS on one mark read keeps it fresh', async () => {
    const { state, port } = fakeStore([], 'm1');
    const directory = new LimitSettingsDirectory(port, clock);
    await directory.atDefaults('org_a', TTL);
    t += 400;
    expect(directory.atDefaults('org_b', TTL)).toBe(true);
    expect(state).toMatchObject({ markReads: 1, listReads: 1 });
    t += 200;
    expect(directory.atDefaults('org_c', TTL)).toBe(true);
    expect(directory.atDefaults('org_d', TTL)).toBe(true);
    expect(state).toMatchObject({ markReads: 2, listReads: 1 });
    // The check in the background settles (the fake store answers in the same turn).
    await new Promise((resolve) => setImmediate(resolve));
    expect(state).toMatchObject({ markReads: 2, listReads: 1 });
    // Vouched from the second check's start: still fresh where the first check alone would be stale.
    t += 900;
    expect(directory.atDefaults('org_e', TTL)).toBe(true);
  });

  test('a changed mark reads the list again: an organization given settings meanwhile is then read', async () => {
    const { state, port } = fakeStore([], 'm1');
    const directory = new LimitSettingsDirectory(port, clock);
    expect(await directory.atDefaults('org_a', TTL)).toBe(true);
    state.orgIds = ['org_a'];
    state.mark = 'm2';
    t += TTL;
    expect(await directory.atDefaults('org_a', TTL)).toBe(false);
    expect(state).toMatchObject({ markReads: 2, listReads: 2 });
  });

  test('a stale snapshot is not used: when the check fails every organization is read', async () => {
    const { state, port } = fakeStore([], 'm1');
    const directory = new LimitSettingsDirectory(port, clock);
    expect(await directory.atDefaults('org_a', TTL)).toBe(true);
    state.failing = true;
    t += TTL;
    expect(await directory.atDefaults('org_a', TTL)).toBe(false);
  });

  test('a kept directory looks every quarter of READ_CACHE_MS, at most four times a second', () => {
    expect(directoryTickMs(1000)).toBe(250);
    expect(directoryTickMs(4000)).toBe(1000);
    expect(directoryTickMs(100)).toBe(250);
    expect(directoryTickMs(1)).toBe(250);
  });

  test('kept current, it reads the mark from half of READ_CACHE_MS after each check on, with or without requests, until stopped', async () => {
    // Jest's timers and clock: the ticks come exactly when due, however busy the machine.
    jest.useFakeTimers();
    try {
      const { state, port } = fakeStore([], 'm1');
      const directory = new LimitSettingsDirectory(port, () => Date.now());
      const kept = directory.keepCurrent(TTL);
      await jest.advanceTimersByTimeAsync(0);
      expect(state).toMatchObject({ markReads: 1, listReads: 1 });
      await jest.advanceTimersByTimeAsync(TTL / 2 - 1);
      expect(state.markReads).toBe(1);
      await jest.advanceTimersByTimeAsync(TTL / 4);
      expect(state).toMatchObject({ markReads: 2, listReads: 1 });
      // Never stale while kept: every answer comes from memory.
      await jest.advanceTimersByTimeAsync(10 * TTL);
      expect(directory.atDefaults('org_a', TTL)).toBe(true);
      const reads = state.markReads;
      kept.stop();
      await jest.advanceTimersByTimeAsync(10 * TTL);
      expect(state.markReads).toBe(reads);
    } finally {
      jest.useRealTimers();
    }
  });

  test('with READ_CACHE_MS 0 nothing is known and the store is not asked', () => {
    const { state, port } = fakeStore([], 'm1');
    expect(new LimitSettingsDirectory(port, clock).atDefaults('org_a', 0)).toBe(false);
    expect(state).toMatchObject({ markReads: 0, listReads: 0 });
  });
});
