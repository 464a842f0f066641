import { eventDeliveryStatus } from '../../core/webhooks/eventDeliveryStatus';

const attempt = (replay: number, n: number, status: 'pending' | 'succeeded' | 'failed' | 'dead_lettered', next: string | null = null) => ({
  replay,
  attempt: n,
  status,
  attempted_at: `2026-11-28T10:0${n}:00.000Z`,
  next_attempt_at: next,
});

test("an event's status is its last attempt's: delivered, retrying with the next time, dead-lettered, replayed and delivered", () => {
  expect(eventDeliveryStatus([])).toEqual({ state: 'not_tried' });
  expect(eventDeliveryStatus([attempt(0, 1, 'succeeded')])).toEqual({ state: 'delivered', replay: 0, at: '2026-11-28T10:01:00.000Z' });
  expect(eventDeliveryStatus([attempt(0, 1, 'failed', '2026-11-28T10:06:00.000Z')])).toEqual({
    state: 'retrying',
    replay: 0,
    nextAttemptAt: '2026-11-28T10:06:00.000Z',
  });
  const deadLetter = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => attempt(0, n, 'failed')).concat(attempt(0, 9, 'dead_lettered'));
  expect(eventDeliveryStatus(deadLetter)).toMatchObject({ state: 'dead_lettered', replay: 0 });
  // A replay's success, listed in any order, is what the event now is.
  expect(eventDeliveryStatus([attempt(1, 1, 'succeeded'), ...deadLetter])).toEqual({ state: 'delivered', replay: 1, at: '2026-11-28T10:01:00.000Z' });
});
