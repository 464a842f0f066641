import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { AttemptInput, AttemptResult, DeliveryActivities } from '../../activities/deliveries';
import { DELIVERY_WORKFLOW_TYPE, REPLAY_SIGNAL, type WebhookDeliveryInput } from '../../core/webhooks/deliveryWorkflowContract';
import { maxJitterMs, MAX_ATTEMPTS, SPEC_RETRY_DELAYS_MS } from '../../core/webhooks/retrySchedule';
import { uniqueName } from '../support/testConfig';
import { startBundleWorker, startTimeSkipping, type RunningWorker } from '../support/timeSkipping';

/**
 * Each branch of the delivery workflow with the attempt activity mocked: no store, no receiver,
 * no network. The workflow runs on the time-skipping server, so the spec schedule's 21 hours
 * and the replay window pass at once. `webhookDelivery.cases.ts` runs the same workflow with the
 * real activities over the full schedule; these tests pin down the workflow's own decisions.
 */
let env: TestWorkflowEnvironment;
let worker: RunningWorker;
const taskQueue = uniqueName('tq_delivery_branches');

/** What the mocked attempt answers, per event: attempt number (and run) → outcome; a throw is an infrastructure failure. */
type Answer = (input: AttemptInput, call: number) => boolean;
const answers = new Map<string, Answer>();
const calls = new Map<string, AttemptInput[]>();

const attemptDelivery = jest.fn(async (input: AttemptInput): Promise<AttemptResult> => {
  const seen = calls.get(input.eventId) ?? [];
  seen.push(input);
  calls.set(input.eventId, seen);
  const ok = answers.get(input.eventId)!(input, seen.length);
  return { ok, deliveryId: `dlv_${input.eventId}_${input.run.replay}_${input.attempt}`, status: ok ? 'succeeded' : 'failed' };
});

beforeAll(async () => {
  env = await startTimeSkipping();
  const activities: Pick<DeliveryActivities, 'attemptDelivery'> = { attemptDelivery };
  worker = await startBundleWorker(env, taskQueue, activities);
});

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
});

let seq = 0;
function newEvent(answer: Answer, extra: Partial<WebhookDeliveryInput> = {}): WebhookDeliveryInput {
  const eventId = `evt_branch${++seq}_${Date.now()}`;
  answers.set(eventId, answer);
  return {
    eventId,
    orgId: 'org_x',
    workspaceId: 'wsp_x',
    jobId: `job_${eventId}`,
    body: '{}',
    run: { replay: 0, endpointId: 'whe_first' },
    indexed: false,
    ...extra,
  };
}

function start(input: WebhookDeliveryInput) {
  return env.client.workflow.start(DELIVERY_WORKFLOW_TYPE, { taskQueue, workflowId: `webhook-event:${input.eventId}`, args: [input] });
}

/**
 * Each attempt of one run came after the delay the attempt before announced (its record's next
 * due time), and that delay is the schedule's: the base delay plus at most its jitter.
 */
function expectScheduleGaps(attempts: AttemptInput[]) {
  for (let i = 1; i < attempts.length; i++) {
    const base = SPEC_RETRY_DELAYS_MS[i - 1];
    const announced = attempts[i - 1].nextDelayMs!;
    const gap = attempts[i].scheduledAt - attempts[i - 1].scheduledAt;
    const facts = { attempt: attempts[i].attempt, base, announced, gap };
    expect({
      ...facts,
      announcedOnSchedule: announced >= base && announced <= base + maxJitterMs(base),
      waitedAsAnnounced: gap >= announced && gap < announced + 1000,
    }).toEqual({ ...facts, attempt: i + 1, announcedOnSchedule: true, waitedAsAnnounced: true });
  }
}

test('a 2xx on the first attempt ends the workflow: succeeded, one attempt, no timer', async () => {
  const input = newEvent(() => true);
  expect(await (await start(input)).result()).toBe('succeeded');
  expect(calls.get(input.eventId)!.map((c) => c.attempt)).toEqual([1]);
});

test('success on attempt k stops at k, each attempt after the scheduled delay', async () => {
  const input = newEvent((a) => a.attempt === 4);
  expect(await (await start(input)).result()).toBe('succeeded');
  const attempts = calls.get(input.eventId)!;
  expect(attempts.map((c) => c.attempt)).toEqual([1, 2, 3, 4]);
  expectScheduleGaps(attempts);
});

test('nine failures dead-letter the event; without a replay signal the replay window closes and the workflow ends', async () => {
  const input = newEvent(() => false, { replayWindowMs: 3600_000 });
  expect(await (await start(input)).result()).toBe('dead_lettered');
  const attempts = calls.get(input.eventId)!;
  expect(attempts.map((c) => c.attempt)).toEqual(Array.from({ length: MAX_ATTEMPTS }, (_, i) => i + 1));
  expect(attempts.at(-1)!.nextDelayMs).toBeNull();
  expectScheduleGaps(attempts);
});

test('a replay signal after dead-letter starts a fresh run of the same event at the endpoint it names', async () => {
  const input = newEvent((a) => a.run.replay === 1 && a.attempt === 2);
  const handle = await start(input);
  // Nine failed attempts of the original run; the workflow then waits for a replay.
  const waiting = async () => (calls.get(input.eventId)?.length ?? 0) >= MAX_ATTEMPTS;
  while (!(await waiting())) await env.sleep(3600_000);
  await handle.signal(REPLAY_SIGNAL, { replay: 1, endpointId: 'whe_second' });
  expect(await handle.result()).toBe('succeeded');
  const replayed = calls.get(input.eventId)!.slice(MAX_ATTEMPTS);
  expect(replayed.map((c) => ({ attempt: c.attempt, run: c.run }))).toEqual([
    { attempt: 1, run: { replay: 1, endpointId: 'whe_second' } },
    { attempt: 2, run: { replay: 1, endpointId: 'whe_second' } },
  ]);
  // The same event: the replay carries the same body.
  expect(new Set(calls.get(input.eventId)!.map((c) => c.event?.body))).toEqual(new Set(['{}']));
});

test('a replay signal for a run no newer than the current one is ignored', async () => {
  const input = newEvent(() => false);
  const handle = await start(input);
  while ((calls.get(input.eventId)?.length ?? 0) < MAX_ATTEMPTS) await env.sleep(3600_000);
  await handle.signal(REPLAY_SIGNAL, { replay: 0, endpointId: 'whe_other' });
  expect(await handle.result()).toBe('dead_lettered');
  expect(calls.get(input.eventId)).toHaveLength(MAX_ATTEMPTS);
});

test('an attempt that fails on our own infrastructure (the activity throws) is retried by Temporal, not counted as an attempt', async () => {
  let thrown = 0;
  const input = newEvent((a) => {
    if (a.attempt === 1 && thrown === 0) {
      thrown++;
      throw new Error('store unavailable');
    }
    return true;
  });
  expect(await (await start(input)).result()).toBe('succeeded');
  expect(thrown).toBe(1);
  // The same attempt 1, asked twice: the retry is not a second attempt of the schedule.
  expect(calls.get(input.eventId)!.map((c) => c.attempt)).toEqual([1, 1]);
});
