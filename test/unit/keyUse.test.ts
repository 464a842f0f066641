import { checkKeyName, defaultKeyName } from '../../core/keys/keyNames';
import { KEY_USE_PERIOD_MS, KeyUseRecorder } from '../../core/keys/keyUse';
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
