import {
  delayAfterAttempt,
  delayWithJitter,
  MAX_ATTEMPTS,
  MAX_JITTER_MS,
  maxJitterMs,
  SPEC_RETRY_DELAYS_MS,
  validSchedule,
} from '../../core/webhooks/retrySchedule';

describe('retry schedule (SPEC 6.4)', () => {
  test('is the spec schedule: 5 s, 30 s, 2 m, 10 m, 30 m, 2 h, 6 h, 12 h; nine attempts', () => {
    expect(SPEC_RETRY_DELAYS_MS).toEqual([5e3, 30e3, 120e3, 600e3, 1800e3, 7200e3, 21600e3, 43200e3]);
    expect(MAX_ATTEMPTS).toBe(9);
    expect(validSchedule(undefined)).toBe(SPEC_RETRY_DELAYS_MS);
  });

  test('jitter only delays and stays within its bound', () => {
    for (const base of SPEC_RETRY_DELAYS_MS) {
      expect(delayWithJitter(base, 0)).toBe(base);
      for (const r of [0.001, 0.25, 0.5, 0.75, 0.999999, 1, 5]) {
        const d = delayWithJitter(base, r);
        expect(d).toBeGreaterThanOrEqual(base);
        expect(d).toBeLessThanOrEqual(base + maxJitterMs(base));
      }
      expect(delayWithJitter(base, -1)).toBe(base);
    }
    expect(maxJitterMs(5_000)).toBe(500);
    expect(maxJitterMs(43_200_000)).toBe(MAX_JITTER_MS);
  });

  test('the whole run spans roughly 21 hours', () => {
    const min = SPEC_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    const max = SPEC_RETRY_DELAYS_MS.reduce((a, b) => a + b + maxJitterMs(b), 0);
    expect(min / 3_600_000).toBeCloseTo(20.71, 1);
    expect(max / 3_600_000).toBeLessThan(21.1);
  });

  test('a delay follows attempts 1–8, none follows the ninth', () => {
    for (let a = 1; a <= 8; a++) expect(delayAfterAttempt(a, SPEC_RETRY_DELAYS_MS, 0)).toBe(SPEC_RETRY_DELAYS_MS[a - 1]);
    expect(delayAfterAttempt(9, SPEC_RETRY_DELAYS_MS, 0.5)).toBeNull();
  });

  test('an override must have eight non-negative integer delays', () => {
    expect(validSchedule([1, 2, 3, 4, 5, 6, 7, 8])).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(() => validSchedule([1, 2, 3])).toThrow();
    expect(() => validSchedule([1, 2, 3, 4, 5, 6, 7, -8])).toThrow();
  });
});
