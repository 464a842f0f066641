import { deliveryTimeline, offsetText, plannedOffsets, timelineHtml } from '../../api/console/webhooks/deliveryTimeline';
import type { DeliveryView } from '../../core/webhooks/webhookDeliveries';

const t0 = Date.parse('2026-11-25T10:00:00Z');

function attempt(n: number, replay: number, status: DeliveryView['status'], atMs: number): DeliveryView {
  return {
    delivery_id: `dlv_${replay}_${n}`,
    event_id: 'evt_1',
    endpoint_id: 'we_1',
    job_id: 'job_1',
    attempt: n,
    replay,
    status,
    response_status: status === 'succeeded' ? 200 : 500,
    error_code: status === 'succeeded' ? null : 'http_status',
    duration_ms: 12,
    scheduled_at: new Date(atMs).toISOString(),
    attempted_at: new Date(atMs).toISOString(),
    next_attempt_at: status === 'failed' ? new Date(atMs + 30_000).toISOString() : null,
  };
}

test('the schedule as offsets from the first attempt: 0, 5 s, 35 s, … 20 h 42 min for the ninth', () => {
  const offsets = plannedOffsets();
  expect(offsets).toHaveLength(9);
  expect(offsets.slice(0, 4)).toEqual([0, 5_000, 35_000, 155_000]);
  expect(offsets[8]).toBe(74_555_000);
  expect(offsetText(offsets[8])).toBe('+20 h 42 min');
  expect(offsetText(155_000)).toBe('+2 min 35 s');
  expect(offsetText(0)).toBe('0 s');
});

test('a failing run shows its attempts and the next one planned; a run that ended plans nothing more', () => {
  const runs = deliveryTimeline([
    attempt(1, 0, 'failed', t0),
    attempt(2, 0, 'failed', t0 + 5_400),
    attempt(1, 1, 'failed', t0 + 86_400_000),
    attempt(2, 1, 'succeeded', t0 + 86_405_000),
  ]);
  expect(runs.map((r) => r.replay)).toEqual([0, 1]);
  expect(runs[0].steps.map((s) => [s.attempt, s.delivery?.status ?? 'planned'])).toEqual([
    [1, 'failed'],
    [2, 'failed'],
    [3, 'planned'],
  ]);
  expect(runs[1].steps.map((s) => s.attempt)).toEqual([1, 2]);

  const out = timelineHtml(runs).toString();
  expect(out).toContain('Original delivery');
  expect(out).toContain('Replay 1');
  expect(out).toMatch(
    /Attempt 2<\/strong> · planned \+5 s · sent <time datetime="2026-11-25T10:00:05\.400Z">2026-11-25 10:00:05 UTC<\/time> \(\+5 s\)\s*· failed · HTTP 500 · 12 ms · next attempt/,
  );
  expect(out).toMatch(/Attempt 3<\/strong> · planned \+35 s\s*· not yet sent/);
});

test('an event without attempts says so', () => {
  expect(timelineHtml(deliveryTimeline([])).toString()).toContain('No attempt has been made yet.');
});
