import { parseIsoInstant } from '../../core/isoInstant';
import { instantParameter } from '../../api/routes/instantParameter';

describe('an instant written as text', () => {
  test('an ISO 8601 date is its UTC midnight', () => {
    expect(parseIsoInstant('2026-11-27')?.toISOString()).toBe('2026-11-27T00:00:00.000Z');
    expect(parseIsoInstant('2024-02-29')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
  });

  test('a date-time keeps its offset', () => {
    expect(parseIsoInstant('2026-11-27T09:30:00Z')?.toISOString()).toBe('2026-11-27T09:30:00.000Z');
    expect(parseIsoInstant('2026-11-27T09:30:00.250+02:00')?.toISOString()).toBe('2026-11-27T07:30:00.250Z');
  });

  test('anything else is no instant: a local time, an impossible day, words', () => {
    for (const text of ['2026-11-27T09:30:00', '2026-02-30', '2025-02-29', '27/11/2026', '2026-11', 'yesterday', '', '2026-11-27 09:30:00Z'])
      expect({ text, instant: parseIsoInstant(text) }).toEqual({ text, instant: null });
  });

  test('the query parameter reads both forms and names them when it refuses', () => {
    const parameter = instantParameter('start');
    expect(parameter.parse('2026-11-27')).toEqual(new Date('2026-11-27T00:00:00.000Z'));
    expect(parameter.parse(undefined)).toBeUndefined();
    const refused = parameter.safeParse('2026-11-27T09:30');
    expect(refused.error?.issues[0].message).toMatch(/ISO 8601 date \(2026-11-27.*date-time with an offset/);
  });
});
