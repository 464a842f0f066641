import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createDeliveryActivities, type AttemptInput, type AttemptResult, type DeliveryActivities } from '../../activities/deliveries';
import type { Config } from '../../core/config';
import { systemDestinationLookup } from '../../core/outbound/destinationResolver';
import { registerEndpoint } from '../../core/webhooks/webhookEndpoints';
import { openTestStore, type TestStore } from '../support/testStore';
import { createTenant } from '../support/fixtures';
import { startHttpsReceiver, type HttpsReceiver } from '../support/httpsReceiver';
import { testConfig, uniqueName } from '../support/testConfig';
import { testLogger } from '../support/capturedLogs';
import { createDeps } from '../../core/deps';
import { OutboundConnections } from '../../core/outbound/outboundConnections';
import { purposeKeysOf } from '../../core/crypto/purposeKeys';

/**
 * The delivery attempt activity (activities/deliveries.ts) run in an activity context from
 * `MockActivityEnvironment`, as a retried attempt: an attempt is claimed before its POST, so a
 * retry of an attempt that already began never POSTs a second time, whether or not the first
 * run lived to record its outcome. Real store, real HTTPS receiver on loopback.
 */
let testStore: TestStore;
let receiver: HttpsReceiver;
let config: Config;
let activities: DeliveryActivities;
const outbound = new OutboundConnections();

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  receiver.respond(() => ({ status: 200 }));
  config = testConfig({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', WEBHOOK_EXTRA_CA_FILE: receiver.caFile });
  testStore = await openTestStore(config);
  activities = createDeliveryActivities(createDeps(config, { logger: testLogger(), store: testStore.handle, outbound }));
});

afterAll(async () => {
  await receiver?.close();
  outbound.close();
  await testStore.close();
});

/** Runs the activity as its `activityAttempt`-th try would run (SDK logs kept quiet). */
function runActivity(activityAttempt: number, input: AttemptInput): Promise<AttemptResult> {
  const env = new MockActivityEnvironment({ attempt: activityAttempt, activityType: 'attemptDelivery' }, { logger: new DefaultLogger('ERROR') });
  return env.run<[AttemptInput], AttemptResult, DeliveryActivities['attemptDelivery']>(activities.attemptDelivery, input);
}

/** The first attempt of a new event to a fresh endpoint; its receiver path is unique to it. */
async function firstAttempt(): Promise<{ input: AttemptInput; path: string }> {
  const tenant = await createTenant();
  const path = `/hook/${tenant.workspaceId}`;
  const reg = await registerEndpoint(
    testStore.stores,
    tenant,
    `${receiver.url}${path}`,
    {
      lookupAll: systemDestinationLookup,
      allowedCidrs: config.webhooks.allowedCidrs,
      purposeKeys: purposeKeysOf(config),
    },
    new Date(),
  );
  const jobId = uniqueName('job');
  return {
    path,
    input: {
      eventId: uniqueName('evt'),
      event: { orgId: tenant.orgId, workspaceId: tenant.workspaceId, jobId, body: JSON.stringify({ type: 'job.completed', data: { job_id: jobId } }) },
      run: { replay: 0, endpointId: reg.endpoint.endpoint_id },
      attempt: 1,
      scheduledAt: Date.now(),
      nextDelayMs: 60_000,
    },
  };
}

const postsTo = (path: string) => receiver.requests.filter((r) => r.path === path).length;
const recordsOf = async (input: AttemptInput) =>
  (await testStore.stores.webhooks.deliveries.deliveriesOfEvent(input.eventId)).filter((d) => d.replay === input.run.replay && d.attempt === input.attempt);

test('a retry of an attempt whose outcome was recorded returns that record and POSTs nothing', async () => {
  const { input, path } = await firstAttempt();
  const first = await runActivity(1, input);
  expect(first).toMatchObject({ ok: true, status: 'succeeded' });
  expect(postsTo(path)).toBe(1);

  // The activity's completion was lost (worker died after recording): Temporal runs it again.
  const retried = await runActivity(2, input);
  expect(retried).toEqual(first);
  expect(postsTo(path)).toBe(1);
  expect(await recordsOf(input)).toHaveLength(1);
});

test('a retry of an attempt claimed by a run that died before recording fails it as attempt_interrupted and POSTs nothing', async () => {
  const { input, path } = await firstAttempt();
  // What a run that died between its claim and its record leaves behind.
  await testStore.stores.webhooks.deliveries.claimAttempt({ eventId: input.eventId, replay: input.run.replay, attempt: input.attempt }, new Date());

  const retried = await runActivity(2, input);
  expect(retried).toMatchObject({ ok: false, status: 'failed' });
  expect(postsTo(path)).toBe(0);
  const records = await recordsOf(input);
  expect(records).toHaveLength(1);
  expect(records[0]).toMatchObject({ _id: retried.deliveryId, status: 'failed', errorCode: 'attempt_interrupted', responseStatus: null });
  // The schedule goes on: the next attempt is due after the delay.
  expect(records[0].nextAttemptAt).not.toBeNull();
});

test('an event that does not exist fails the attempt without retries', async () => {
  const { input, path } = await firstAttempt();
  const missing: AttemptInput = { ...input, eventId: uniqueName('evt_missing'), event: undefined };
  const failure = await runActivity(1, missing).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure).toMatchObject({ type: 'EventMissing', nonRetryable: true });
  expect(postsTo(path)).toBe(0);
  expect(await recordsOf(missing)).toHaveLength(0);
});
