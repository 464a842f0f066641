import { checkKeyName, defaultKeyName } from '../../core/keys/keyNames';
import { gatheredKeyUseWrite, KEY_USE_PERIOD_MS, KEY_USE_SPACING_MS, KEY_USES_PER_WRITE, KeyUseRecorder } from '../../core/keys/keyUse';
import type { KeysStores } from '../../core/keys/store';
import { capturingLogger } from '../support/capturedLogs';

describe('key names', () => {
  test('a given name is trimmed; blank, over 100 characters or with control characters is refused', () => {
    expect(checkKeyName('  CI deploys ')).toEqual({ ok: true, name: 'CI deploys' });
    expect(checkKeyName('   ').ok).toBe(false);
    expect(checkKeyName('x'.repeat(101)).ok).toBe(false);
    expect(checkKeyName('x'.repeat(100)).ok).toBe(true);
    expect(checkKeyName('line\nbreak').ok).toBe(false);
  });

  test("a rotation keeps its family's name; a new key is named after its display prefix", () => {
    expect(defaultKeyName('sk_live_ext_AbCd', 'Billing sync')).toBe('Billing sync');
    expect(defaultKeyName('sk_live_ext_AbCd', null)).toBe('Key sk_live_ext_AbCd');
  });
});

describe('KeyUseRecorder', () => {
  function recorder(start = Date.UTC(2026, 0, 1, 12, 0, 0)) {
    const clock = { now: start };
    const writes: Array<{ keyId: string; at: number }> = [];
    const rec = new KeyUseRecorder(
      capturingLogger().logger,
      async (keyId, at) => {
        writes.push({ keyId, at: at.getTime() });
        return true;
      },
      () => clock.now,
    );
    return { clock, writes, rec };
  }

  test('100 uses within a minute are one write; the next minute is another', () => {
    const { clock, writes, rec } = recorder();
    const start = clock.now;
    for (let i = 0; i < 100; i++) {
      rec.note('key_a');
      clock.now += 500;
    }
    expect(writes).toEqual([{ keyId: 'key_a', at: start }]);
    clock.now = start + KEY_USE_PERIOD_MS - 1;
    rec.note('key_a');
    expect(writes).toHaveLength(1);
    clock.now = start + KEY_USE_PERIOD_MS;
    rec.note('key_a');
    expect(writes).toEqual([
      { keyId: 'key_a', at: start },
      { keyId: 'key_a', at: start + KEY_USE_PERIOD_MS },
    ]);
  });

  test('each key has its own minute', () => {
    const { writes, rec } = recorder();
    rec.note('key_a');
    rec.note('key_b');
    rec.note('key_a');
    expect(writes.map((w) => w.keyId)).toEqual(['key_a', 'key_b']);
  });

  test('a failed write is logged, never thrown, and not retried on every use within the minute', async () => {
    const clock = { now: 0 };
    let calls = 0;
    const { logger, lines: logged } = capturingLogger();
    const rec = new KeyUseRecorder(
      logger,
      () => {
        calls++;
        return Promise.reject(new Error('store down'));
      },
      () => clock.now,
    );
    await expect(rec.note('key_a')).resolves.toBeUndefined();
    rec.note('key_a');
    expect(calls).toBe(1);
    clock.now += KEY_USE_PERIOD_MS;
    await rec.note('key_a');
    expect(calls).toBe(2);
    expect(logged.map((l) => [l.level, l.msg, l.key_id])).toEqual([
      [40, 'recording the last use of an API key failed', 'key_a'],
      [40, 'recording the last use of an API key failed', 'key_a'],
    ]);
  });

  test('a clock that went back does not silence the key for longer than a minute', () => {
    const { clock, writes, rec } = recorder();
    rec.note('key_a');
    clock.now -= 10 * KEY_USE_PERIOD_MS;
    rec.note('key_a');
    expect(writes).toHaveLength(2);
  });
});

describe('gatheredKeyUseWrite', () => {
  /** A keys store whose batch writes finish when the test says so. */
  function gatheringStore(spacingMs: number) {
    const commands: Array<{ keys: string[]; finish: (err?: Error) => void }> = [];
    const stores = {
      keys: {
        recordKeyUses: (uses: ReadonlyArray<{ keyId: string; at: Date }>, periodMs: number) =>
          new Promise<void>((resolve, reject) => {
            expect(periodMs).toBe(KEY_USE_PERIOD_MS);
            commands.push({ keys: uses.map((u) => u.keyId), finish: (err) => (err ? reject(err) : resolve()) });
          }),
      },
    } as unknown as KeysStores;
    return { commands, write: gatheredKeyUseWrite(stores, spacingMs, () => Date.now()) };
  }
  const at = new Date(Date.UTC(2026, 0, 1));

  test('the first use is written at once; the uses noted while it is in flight and within the spacing share the next command', async () => {
    // jest's timers and clock: the spacing passes exactly, however busy the machine.
    jest.useFakeTimers();
    try {
      const { commands, write } = gatheringStore(KEY_USE_SPACING_MS);
      const first = write('key_a', at);
      // Sent after the current step (jest fakes queueMicrotask too), not after the spacing.
      await jest.advanceTimersByTimeAsync(0);
      expect(commands.map((c) => c.keys)).toEqual([['key_a']]);
      const later = [write('key_b', at)];
      commands[0].finish();
      await first;
      later.push(write('key_c', at));
      await jest.advanceTimersByTimeAsync(KEY_USE_SPACING_MS - 1);
      expect(commands).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(1);
      expect(commands.map((c) => c.keys)).toEqual([['key_a'], ['key_b', 'key_c']]);
      commands[1].finish();
      await Promise.all(later);
      // After a quiet spell the next use goes at once.
      await jest.advanceTimersByTimeAsync(KEY_USE_SPACING_MS);
      void write('key_e', at);
      await jest.advanceTimersByTimeAsync(0);
      expect(commands.map((c) => c.keys)).toEqual([['key_a'], ['key_b', 'key_c'], ['key_e']]);
    } finally {
      jest.useRealTimers();
    }
  });

  test('many keys due at once go a few per command, one command per spacing', async () => {
    jest.useFakeTimers();
    try {
      const { commands, write } = gatheringStore(KEY_USE_SPACING_MS);
      const keys = Array.from({ length: 2 * KEY_USES_PER_WRITE + 1 }, (_, i) => `key_${i}`);
      const written = keys.map((k) => write(k, at));
      await jest.advanceTimersByTimeAsync(0);
      expect(commands.map((c) => c.keys)).toEqual([keys.slice(0, KEY_USES_PER_WRITE)]);
      commands[0].finish();
      await jest.advanceTimersByTimeAsync(KEY_USE_SPACING_MS - 1);
      expect(commands).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(1);
      expect(commands[1].keys).toEqual(keys.slice(KEY_USES_PER_WRITE, 2 * KEY_USES_PER_WRITE));
      commands[1].finish();
      await jest.advanceTimersByTimeAsync(KEY_USE_SPACING_MS);
      expect(commands[2].keys).toEqual(keys.slice(2 * KEY_USES_PER_WRITE));
      commands[2].finish();
      await Promise.all(written);
    } finally {
      jest.useRealTimers();
    }
  });

  test('a failed command fails each of its uses, and the next command still goes', async () => {
    const { commands, write } = gatheringStore(0);
    const first = write('key_a', at);
    const alongside = write('key_b', at);
    await new Promise((resolve) => setImmediate(resolve));
    const second = write('key_c', at);
    commands[0].finish(new Error('store down'));
    await expect(first).rejects.toThrow('store down');
    await expect(alongside).rejects.toThrow('store down');
    await new Promise((resolve) => setImmediate(resolve));
    expect(commands.map((c) => c.keys)).toEqual([['key_a', 'key_b'], ['key_c']]);
    commands[1].finish();
    await expect(second).resolves.toBeUndefined();
  });
});
