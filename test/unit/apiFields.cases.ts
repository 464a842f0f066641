import { apiFields, snakeCase } from '../../core/apiFields';

test('names read in snake_case', () => {
  expect(snakeCase('clientAddress')).toBe('client_address');
  expect(snakeCase('nextAttemptAt')).toBe('next_attempt_at');
  expect(snakeCase('status')).toBe('status');
});

test('the named fields, in the order named: times as ISO text, what the record lacks as null, anything else as it is', () => {
  const record: { scheduledAt: Date; nextAttemptAt: Date | null; durationMs?: number; attempt: number; before: Record<string, unknown> | null; orgId: string } =
    {
      scheduledAt: new Date('2026-01-02T03:04:05.678Z'),
      nextAttemptAt: null,
      attempt: 0,
      before: {},
      orgId: 'org_1',
    };
  const shown = apiFields(record, ['attempt', 'durationMs', 'scheduledAt', 'nextAttemptAt', 'before']);
  expect(Object.keys(shown)).toEqual(['attempt', 'duration_ms', 'scheduled_at', 'next_attempt_at', 'before']);
  expect(shown).toEqual({ attempt: 0, duration_ms: null, scheduled_at: '2026-01-02T03:04:05.678Z', next_attempt_at: null, before: {} });
});
