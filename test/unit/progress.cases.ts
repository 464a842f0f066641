import { Writable } from 'node:stream';
import { formatAmount, progressLine, startProgress } from '../../scripts/progress';

describe('progress of long local steps', () => {
  test('a line with bar, counts and elapsed seconds; bytes without a total', () => {
    expect(progressLine({ label: 'seeding', done: 500, total: 2000, unit: 'count', elapsedMs: 3400, bar: true })).toBe(
      'seeding  [######------------------]  500/2,000  3 s',
    );
    expect(progressLine({ label: 'seeding', done: 500, total: 2000, unit: 'count', elapsedMs: 3400, bar: false })).toBe('seeding  500/2,000  3 s');
    expect(progressLine({ label: 'pip', done: 3 * 1024 * 1024, unit: 'bytes', elapsedMs: 12_000, bar: true })).toBe('pip  3.0 MB  12 s');
    expect(progressLine({ label: 'go build', unit: 'bytes', elapsedMs: 61_000, bar: true })).toBe('go build  61 s');
    expect(formatAmount(2048, 'bytes')).toBe('2.0 KB');
  });

  test('off a terminal: a plain line every few seconds, and the time at the end', () => {
    let written = '';
    const stream = Object.assign(new Writable({ write: (c, _e, cb) => ((written += c.toString()), cb()) }), { isTTY: false }) as unknown as NodeJS.WriteStream;
    // The ticker and the elapsed time both run on jest's clock, advanced instead of waited for.
    jest.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    try {
      const p = startProgress('building', { stream, plainEverySeconds: 1 });
      p.update(10);
      jest.advanceTimersByTime(2300);
      p.finish();
    } finally {
      jest.useRealTimers();
    }
    const lines = written.trim().split('\n');
    expect(written).not.toContain('\r');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatch(/^building {2}10 {2}\d s$/);
    expect(lines.at(-1)).toMatch(/^building: done in 2\.\d s, 10$/);
  });
});
