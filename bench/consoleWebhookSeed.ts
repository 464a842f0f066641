import { newId } from '../core/ids';
import { deliveryIdOf } from '../core/webhooks/deliveryNumbering';
import { jobCompletedBody } from '../core/webhooks/eventEnvelope';
import { MAX_ATTEMPTS, SPEC_RETRY_DELAYS_MS } from '../core/webhooks/retrySchedule';
import { HOUR_MS } from '../core/webhooks/store/deliveryStore';
import type { WebhookStores } from '../core/webhooks/store/webhookStore';
import type { DeliveryRecord, EventRecord } from '../core/webhooks/store/records';
import { healthCountsOfAttempt } from '../core/webhooks/webhookHealth';

/**
 * The webhook part of the console benchmark's organization: one endpoint, `job.completed`
 * events over the last 90 days and `attempts` delivery attempts for them, as the delivery
 * workflow leaves them (numbered in time order, the workspace's head and health counters set).
 * Events run as deliveries do: most succeed at once, some after retries on the spec schedule,
 * one in ten dead-letters after nine attempts, half of those replayed once with success. Rows are
 * written as they are, 1,000 at a time.
 */
const DAY_MS = 24 * 3600_000;
const BATCH = 1000;

/** Failed attempts before the outcome, per event, in turn: 0 = delivered at once, 9 = dead-lettered. */
const PATTERN = [0, 0, 0, 0, 0, 0, 2, 2, 5, 9];

export async function seedConsoleWebhooks(
  stores: WebhookStores,
  scope: { orgId: string; workspaceId: string },
  attempts: number,
  jobIds: readonly string[],
  now: Date,
): Promise<{ endpointId: string; events: number }> {
  const span = 90 * DAY_MS;
  const endpointId = newId('we');
  const createdAt = new Date(now.getTime() - span);
  await stores.webhooks.endpoints.insertEndpointRecord({
    _id: endpointId,
    orgId: scope.orgId,
    workspaceId: scope.workspaceId,
    url: 'https://receiver.bench.example/hooks',
    state: 'active',
    activeSlot: scope.workspaceId,
    secrets: [],
    rotationEndsAt: null,
    retiredAt: null,
    createdAt,
    updatedAt: createdAt,
  });

  // The events first, each with its attempts, until there are as many attempts as asked.
  const plans: Array<{ failures: number; replayed: boolean }> = [];
  let planned = 0;
  for (let i = 0; planned < attempts; i++) {
    const failures = PATTERN[i % PATTERN.length];
    const replayed = failures === MAX_ATTEMPTS && i % (2 * PATTERN.length) === PATTERN.length - 1;
    plans.push({ failures, replayed });
    planned += (failures === MAX_ATTEMPTS ? MAX_ATTEMPTS : failures + 1) + (replayed ? 1 : 0);
  }
  const events: EventRecord[] = [];
  const rows: Omit<DeliveryRecord, '_id' | 'seq'>[] = [];
  plans.forEach((plan, e) => {
    const emittedAt = new Date(now.getTime() - span + (e / plans.length) * (span - DAY_MS));
    const eventId = `evt_bench${String(e).padStart(8, '0')}`;
    const jobId = jobIds[e] ?? `job_bench${String(e).padStart(8, '0')}`;
    const dead = plan.failures === MAX_ATTEMPTS;
    let at = emittedAt.getTime() + 200;
    const run = (replay: number, failures: number, lastAt: { t: number }) => {
      const total = failures === MAX_ATTEMPTS ? MAX_ATTEMPTS : failures + 1;
      for (let attempt = 1; attempt <= total; attempt++) {
        const ok = attempt > failures;
        const status = ok ? 'succeeded' : attempt === MAX_ATTEMPTS ? 'dead_lettered' : 'failed';
        const next = ok || attempt === MAX_ATTEMPTS ? null : new Date(lastAt.t + SPEC_RETRY_DELAYS_MS[attempt - 1]);
        const attemptedAt = new Date(lastAt.t);
        rows.push({
          eventId,
          endpointId,
          orgId: scope.orgId,
          workspaceId: scope.workspaceId,
          jobId,
          attempt,
          replay,
          status,
          responseStatus: ok ? 200 : 503,
          errorCode: ok ? null : 'http_status',
          durationMs: 40 + ((e + attempt) % 60),
          scheduledAt: attemptedAt,
          attemptedAt,
          nextAttemptAt: next,
          createdAt: attemptedAt,
          updatedAt: attemptedAt,
        });
        if (next) lastAt.t = next.getTime();
      }
    };
    const clock = { t: at };
    run(0, plan.failures, clock);
    const deadAt = new Date(clock.t);
    if (plan.replayed) {
      at = clock.t + 3600_000;
      run(1, 0, { t: at });
    }
    events.push({
      _id: eventId,
      jobId,
      orgId: scope.orgId,
      workspaceId: scope.workspaceId,
      endpointId,
      body: jobCompletedBody({
        eventId,
        emittedAt,
        jobId,
        status: 'completed',
        counts: { requested: 10, delivered: 7, not_found: 2, failed: 1, reused: 0, cancelled: 0, pending: 0 },
        resultExpiresAt: new Date(emittedAt.getTime() + 30 * DAY_MS),
      }),
      resultExpiresAt: new Date(emittedAt.getTime() + 30 * DAY_MS),
      status: dead ? (plan.replayed ? 'replaying' : 'dead_lettered') : 'delivering',
      replays: plan.replayed ? 1 : 0,
      deadLetteredAt: dead ? deadAt : null,
      replayDue: false,
      replayRun: null,
      replayLeaseUntil: null,
      createdAt: emittedAt,
      updatedAt: dead ? deadAt : emittedAt,
    });
  });
  for (let i = 0; i < events.length; i += BATCH) await stores.webhooks.events.insertEventRecords(events.slice(i, i + BATCH));

  // Numbered in the order they were recorded, as the delivery activity numbers them.
  const recorded = rows.slice(0, attempts).sort((a, b) => a.attemptedAt.getTime() - b.attemptedAt.getTime());
  const hours = new Map<number, { failed: number; deadLettered: number }>();
  const since = now.getTime() - 8 * DAY_MS;
  for (let i = 0; i < recorded.length; i += BATCH) {
    const batch = recorded.slice(i, i + BATCH).map((r, j) => ({ _id: deliveryIdOf(scope.workspaceId, i + j + 1), seq: i + j + 1, ...r }));
    await stores.webhooks.deliveries.insertDeliveryRecords(batch);
    for (const r of batch) {
      if (r.attemptedAt.getTime() < since) continue;
      const hour = Math.floor(r.attemptedAt.getTime() / HOUR_MS) * HOUR_MS;
      const add = healthCountsOfAttempt(r.status);
      const counts = hours.get(hour) ?? { failed: 0, deadLettered: 0 };
      counts.failed += add.failed ?? 0;
      counts.deadLettered += add.deadLettered ?? 0;
      hours.set(hour, counts);
    }
  }
  await stores.webhooks.deliveries.setDeliveryHead(scope.workspaceId, recorded.length, false);
  for (const [hour, counts] of hours) await stores.webhooks.deliveries.addHealthCounts(scope.workspaceId, hour, counts);
  return { endpointId, events: events.length };
}
