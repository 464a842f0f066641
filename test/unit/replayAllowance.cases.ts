import { allowanceFrom, REPLAYS_PER_HOUR } from '../../core/webhooks/replayAllowance';

const now = new Date('2026-11-25T12:00:00Z');
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);

test('never-used and hour-old slots are left; the next allowed time is only given when none is', () => {
  expect(allowanceFrom([], now)).toEqual({ left: REPLAYS_PER_HOUR, nextAllowedAt: null });
  expect(allowanceFrom([new Date(0), minutesAgo(60), minutesAgo(59)], now)).toEqual({ left: REPLAYS_PER_HOUR - 1, nextAllowedAt: null });
});

test('ten uses in the trailing hour: none left until the oldest leaves the hour', () => {
  const used = Array.from({ length: REPLAYS_PER_HOUR }, (_, i) => minutesAgo(50 - i));
  expect(allowanceFrom(used, now)).toEqual({ left: 0, nextAllowedAt: new Date(now.getTime() + 10 * 60_000) });
});
