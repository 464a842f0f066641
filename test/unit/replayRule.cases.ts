import { isReplayable } from '../../core/webhooks/replays';

/** Which delivery may be replayed: the dead letter of the event's latest run, while the event is still dead-lettered. */
test('the dead-lettered attempt of the latest run of a dead-lettered event is replayable', () => {
  expect(isReplayable({ status: 'dead_lettered', replay: 0 }, { status: 'dead_lettered', replays: 0 })).toBe(true);
  expect(isReplayable({ status: 'dead_lettered', replay: 2 }, { status: 'dead_lettered', replays: 2 })).toBe(true);
});

test('an earlier run, a replay under way, a failed or succeeded attempt, or a missing event are not', () => {
  expect(isReplayable({ status: 'dead_lettered', replay: 0 }, { status: 'dead_lettered', replays: 1 })).toBe(false);
  expect(isReplayable({ status: 'dead_lettered', replay: 0 }, { status: 'replaying', replays: 1 })).toBe(false);
  expect(isReplayable({ status: 'failed', replay: 0 }, { status: 'dead_lettered', replays: 0 })).toBe(false);
  expect(isReplayable({ status: 'succeeded', replay: 1 }, { status: 'dead_lettered', replays: 1 })).toBe(false);
  expect(isReplayable({ status: 'dead_lettered', replay: 0 }, null)).toBe(false);
});
