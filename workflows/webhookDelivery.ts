import {
  condition,
  continueAsNew,
  defineSignal,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { DeliveryActivities } from '../activities/deliveries';
import {
  REPLAY_SIGNAL,
  DEAD_LETTER_REPLAY_WINDOW_MS,
  type DeliveryRun,
  type DeliveryStatusAttribute,
  type WebhookDeliveryInput,
} from '../core/webhooks/deliveryWorkflowContract';
import { delayAfterAttempt, validSchedule } from '../core/webhooks/retrySchedule';
import { SA } from '../core/temporal/searchAttributes';

/**
 * One workflow per `job.completed` event (`webhook-event:<event_id>`). The schedule lives
 * here as durable timers: attempt, wait 5 s, 30 s, 2 m … 12 h (plus jitter that only
 * delays), nine attempts at most, any 2xx ends it. After the ninth failure the event is
 * dead-lettered and the workflow waits, for the result retention at most, for a replay
 * signal; a replay is a fresh run of nine attempts of the same body bytes.
 *
 * The attempt activity returns the receiver's outcome as a value; its retry policy only
 * covers our own infrastructure (store, worker crash), and a retried activity never POSTs
 * twice for one recorded attempt.
 *
 * The first attempt of a run is a local activity: it runs inside the workflow task that starts
 * the run, which saves the server two task dispatches per event (the time from job finish to
 * first POST, and the delivery rate, are bounded by those). Its claim makes it as safe as an
 * ordinary activity when a worker dies mid-attempt: the re-run finds the claim and never POSTs
 * again. Later attempts come after durable timers of 5 s and more and stay ordinary activities.
 */
const ATTEMPT_OPTIONS = {
  // 15 s for the POST itself, the rest for DNS and the store.
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
} as const;
const { attemptDelivery } = proxyActivities<DeliveryActivities>(ATTEMPT_OPTIONS);
const { attemptDelivery: attemptDeliveryLocally } = proxyLocalActivities<DeliveryActivities>(ATTEMPT_OPTIONS);
/** Histories written before the first attempt became local replay with an ordinary activity. */
const FIRST_ATTEMPT_LOCAL = 'first-attempt-local-activity';

export const replaySignal = defineSignal<[DeliveryRun]>(REPLAY_SIGNAL);

function markStatus(status: DeliveryStatusAttribute, input: WebhookDeliveryInput, endpointId?: string): void {
  if (input.indexed === false) return;
  upsertSearchAttributes([
    { key: SA.deliveryStatus, value: status },
    // A replay goes to the workspace's current endpoint, which may not be the original one.
    ...(endpointId ? [{ key: SA.endpointId, value: endpointId }] : []),
  ]);
}

async function deliverRun(input: WebhookDeliveryInput, run: DeliveryRun, schedule: readonly number[]): Promise<'succeeded' | 'dead_lettered'> {
  for (let attempt = 1; ; attempt++) {
    // Drawn before the attempt so its record can say when the next one is due.
    const nextDelayMs = delayAfterAttempt(attempt, schedule, Math.random());
    const event = input.body === undefined ? undefined : { orgId: input.orgId, workspaceId: input.workspaceId, jobId: input.jobId, body: input.body };
    const attempt1Local = attempt === 1 && patched(FIRST_ATTEMPT_LOCAL);
    const result = await (attempt1Local ? attemptDeliveryLocally : attemptDelivery)({
      eventId: input.eventId,
      event,
      run,
      attempt,
      scheduledAt: Date.now(),
      nextDelayMs,
    });
    if (result.ok) return 'succeeded';
    if (nextDelayMs === null) return 'dead_lettered';
    await sleep(nextDelayMs);
  }
}

export async function webhookDelivery(input: WebhookDeliveryInput): Promise<'succeeded' | 'dead_lettered'> {
  const schedule = validSchedule(input.retryDelaysMs);
  let run = input.run;
  let requested: DeliveryRun | undefined;
  // The API makes the replay transition in the store before it signals, so a signal may arrive
  // while the dead-lettering attempt is still completing: keep the newest request.
  setHandler(replaySignal, (r) => {
    if (!requested || r.replay > requested.replay) requested = r;
  });
  for (;;) {
    const outcome = await deliverRun(input, run, schedule);
    markStatus(outcome, input);
    if (outcome === 'succeeded') return outcome;
    const current = run;
    const replayed = await condition(() => requested !== undefined && requested.replay > current.replay, input.replayWindowMs ?? DEAD_LETTER_REPLAY_WINDOW_MS);
    if (!replayed || !requested) {
      markStatus('replay_window_closed', input);
      return 'dead_lettered';
    }
    run = requested;
    markStatus('replaying', input, run.endpointId);
    if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof webhookDelivery>({ ...input, run });
  }
}
